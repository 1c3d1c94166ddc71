// `npm run bench:python-client`: the Python client's TRL reward function (`PlanReward`, clients/python) end to end,
// called from Python as TRL calls it (bench/python_client.py) with 64 groups × 8 plans of fresh text (a new
// batch each call, bench/fresh-plans.ts: no call repeats a sentence of another; 64 prompts, learner profiles in
// the dataset's `profile` column, conversational prompts and completions), one call per training step into one run, against the service started as `npm start` starts it. BENCH_ROUNDS measured calls
// (default 40, after 5 warm-up calls): p50 and p90 of a call, and beside each call its json floor, Python's
// json.dumps of the request body it sent plus json.loads of the response it received. The system python3
// (the client is standard library only), or PYTHON. Writes bench/results/python-client.json.
// `BENCH_ROOT=<another checkout, built>` measures that build and its client the same way.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type HarnessRun, runTrlHarness, trlBatches } from './python-harness.js';
import { writeResult } from './results.js';
import { startBuiltService } from './service.js';
import { quantile as q } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const WARMUP = 5;
const root = process.env.BENCH_ROOT ? pathToFileURL(`${resolve(process.env.BENCH_ROOT)}/`) : new URL('..', import.meta.url);
const round2 = (x: number) => Number(x.toFixed(2));

const dir = mkdtempSync(join(tmpdir(), 'python-client-'));
const file = join(dir, 'batches.json');
writeFileSync(file, JSON.stringify({ batches: trlBatches(50_000, WARMUP + ROUNDS) }));

const { base, child } = await startBuiltService({}, root);
let out: HarnessRun;
try {
  out = runTrlHarness(root, base, file, WARMUP, ROUNDS);
} finally {
  child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
await new Promise((r) => child.on('exit', r));

const ratios = out.call_ms.map((ms, i) => ms / out.floor_ms[i]!);
const result = {
  batch: '64 groups × 8 plans',
  text: 'fresh',
  plans: 512,
  python: out.python,
  calls: out.call_ms.length,
  warmup_calls: WARMUP,
  groups_in_request: out.groups_in_request,
  request_bytes: out.request_bytes,
  response_bytes: out.response_bytes,
  call_ms: { p50: round2(q(out.call_ms, 0.5)), p90: round2(q(out.call_ms, 0.9)) },
  json_floor_ms: { p50: round2(q(out.floor_ms, 0.5)), p90: round2(q(out.floor_ms, 0.9)) },
  call_to_floor_ratio: { p50: round2(q(ratios, 0.5)), p10: round2(q(ratios, 0.1)), p90: round2(q(ratios, 0.9)) },
};
console.log(JSON.stringify(result, null, 2));
writeResult('python-client', result);
