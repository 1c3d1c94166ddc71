// `npm run bench:openrlhf-burst`: a burst of single-sample OpenRLHF reward requests, sent as OpenRLHF's current
// code sends them (bench/openrlhf_burst.py: SingleTurnAgentExecutor at OpenRLHF/OpenRLHF@3c3be62, one aiohttp
// session per try, 5 tries 1 s apart, reward None when all fail). PROCESSES rollout processes (default 8), each
// with PER_PROCESS samples in flight at once (default 512), all starting together, into one run whose
// `samples_per_step` is every sample of the burst; BENCH_ROUNDS bursts (default 5), a fresh run and fresh
// realistic plans each, against one service started as `npm start` starts it, on its defaults. Per burst:
// the samples left with reward None, what each try saw (status, or the error without one), the time from a
// sample's first try to its final answer, wall time, the CPU seconds of the service and of the clients (which
// share the machine), and the plans the run counted (its open step and its history: every sample once).
// BURST_PYTHON: a Python with aiohttp (`python3 -m venv /tmp/burstvenv && /tmp/burstvenv/bin/pip install
// aiohttp`). Writes bench/results/openrlhf-burst.json. `BENCH_ROOT=<another checkout, built>` measures that
// build the same way.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchBatch } from './realistic-plans.js';
import { writeResult } from './results.js';
import { startBuiltService } from './service.js';
import { quantile as q } from './stats.js';

const PYTHON = process.env.BURST_PYTHON;
if (!PYTHON) {
  console.error(
    'BURST_PYTHON is not set: it names a Python with aiohttp, which the harness needs, e.g.\n' +
      '  python3 -m venv /tmp/burstvenv && /tmp/burstvenv/bin/pip install aiohttp\n' +
      '  BURST_PYTHON=/tmp/burstvenv/bin/python npm run bench:openrlhf-burst',
  );
  process.exit(2);
}
const probe = spawnSync(PYTHON, ['-c', 'import aiohttp, sys; print(aiohttp.__version__, sys.version.split()[0])'], { encoding: 'utf8' });
if (probe.status !== 0) {
  console.error(`BURST_PYTHON=${PYTHON} cannot import aiohttp:\n${probe.error?.message ?? probe.stderr}`);
  process.exit(2);
}
const [aiohttpVersion, pythonVersion] = probe.stdout.trim().split(' ');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PROCESSES = Number(process.env.PROCESSES ?? 8);
const PER_PROCESS = Number(process.env.PER_PROCESS ?? 512);
const SAMPLES = PROCESSES * PER_PROCESS;
const GROUP = 8; // --rollout.n_samples_per_prompt
const HARNESS = fileURLToPath(new URL('openrlhf_burst.py', import.meta.url));
const root = process.env.BENCH_ROOT ? pathToFileURL(`${resolve(process.env.BENCH_ROOT)}/`) : undefined;
const round1 = (x: number) => Number(x.toFixed(1));
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

interface Sample {
  query: string;
  prompt: string;
  label: unknown;
}
interface Answered {
  ms: number;
  none: boolean;
  tries: string[];
}

/** The burst's samples as OpenRLHF sends them: the chat-templated prompt, prompt + response (special tokens kept), the label. */
function samples(seed: number): Sample[] {
  return benchBatch(SAMPLES / GROUP, GROUP, seed).groups.flatMap((g) => {
    const prompt = `<|im_start|>user\nPlan a personalized lesson for this learner. ${g.query}<|im_end|>\n<|im_start|>assistant\n`;
    return g.completions.map((c) => ({ query: `${prompt}${c}<|im_end|>`, prompt, label: g.profile }));
  });
}

const { base, child: service } = await startBuiltService({}, root);
// The service's CPU seconds so far (its worker threads included): utime + stime of /proc/<pid>/stat.
const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);
const serviceCpu = () => {
  const fields = readFileSync(`/proc/${service.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
};
const dir = mkdtempSync(join(tmpdir(), 'openrlhf-burst-'));
const log = createWriteStream(join(dir, 'harness.log'));

async function json<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${path}: HTTP ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

interface RunView {
  finalized_steps: number;
  open_step: { plans: number; requests: number } | null;
}
interface History {
  total: number;
  rows: { plans: number; requests: number; late_plans: number }[];
}

/** One burst into a fresh run. */
async function burst(round: number) {
  const runId = `openrlhf-burst-${Date.now()}-${round}`;
  await json(`/runs/${runId}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ samples_per_step: SAMPLES }) });
  const all = samples(7 + round);
  const url = `${base}/openrlhf/reward?run_id=${runId}`;
  const children: ChildProcess[] = [];
  const outputs: Promise<{ wall_ms: number; cpu_s: number; samples: Answered[] }>[] = [];
  const readies: Promise<void>[] = [];
  for (let p = 0; p < PROCESSES; p++) {
    const file = join(dir, `samples-${p}.json`);
    writeFileSync(file, JSON.stringify(all.slice(p * PER_PROCESS, (p + 1) * PER_PROCESS)));
    const c = spawn(PYTHON!, [HARNESS, url, file], { stdio: ['pipe', 'pipe', 'pipe'] });
    c.stderr!.pipe(log, { end: false });
    children.push(c);
    const lines = createInterface({ input: c.stdout! });
    let ready: () => void;
    readies.push(new Promise<void>((r) => (ready = r)));
    outputs.push(
      new Promise((done, fail) => {
        lines.on('line', (line) => (line === 'ready' ? ready() : done(JSON.parse(line))));
        c.on('exit', (code) => fail(new Error(`harness process ${p} exited with ${code} (log: ${join(dir, 'harness.log')})`)));
      }),
    );
  }
  await Promise.all(readies);
  const [t, cpu] = [performance.now(), serviceCpu()];
  for (const c of children) c.stdin!.end('go\n');
  const answered = await Promise.all(outputs);
  const wallMs = performance.now() - t;
  const serviceCpuS = serviceCpu() - cpu;

  const view = await json<RunView>(`/runs/${runId}`);
  const history = await json<History>(`/runs/${runId}/history?limit=1000`);
  const rows = history.rows;
  const all_ = answered.flatMap((a) => a.samples);
  const tries: Record<string, number> = {};
  for (const s of all_) for (const x of s.tries) tries[x] = (tries[x] ?? 0) + 1;
  const ms = all_.map((s) => s.ms);
  const answeredMs = all_.filter((s) => !s.none).map((s) => s.ms);
  const result = {
    run_id: runId,
    wall_s: round1(wallMs / 1000),
    cpu_s: { service: round1(serviceCpuS), clients: round1(sum(answered.map((a) => a.cpu_s))) },
    none: all_.filter((s) => s.none).length,
    tries,
    tries_per_sample: Object.fromEntries([1, 2, 3, 4, 5].map((n) => [n, all_.filter((s) => s.tries.length === n).length]).filter(([, c]) => (c as number) > 0)),
    sample_ms: { p50: round1(q(ms, 0.5)), p99: round1(q(ms, 0.99)), max: round1(Math.max(...ms)) },
    answered_ms: answeredMs.length ? { p50: round1(q(answeredMs, 0.5)), p99: round1(q(answeredMs, 0.99)) } : null,
    counted_plans: (view.open_step?.plans ?? 0) + sum(rows.map((r) => r.plans)),
    counted_requests: (view.open_step?.requests ?? 0) + sum(rows.map((r) => r.requests)),
    late_plans: sum(rows.map((r) => r.late_plans)),
    finalized_steps: view.finalized_steps,
    open_step_plans: view.open_step?.plans ?? 0,
  };
  console.log(JSON.stringify(result));
  return result;
}

const runs = [];
try {
  for (let r = 0; r < ROUNDS; r++) {
    runs.push(await burst(r));
    await new Promise((s) => setTimeout(s, 2000)); // the service settles between bursts
  }
} finally {
  service.kill('SIGTERM');
  log.end();
}
await new Promise((r) => service.on('exit', r));
rmSync(dir, { recursive: true, force: true });

const result = {
  upstream: 'OpenRLHF/OpenRLHF@3c3be62',
  aiohttp: aiohttpVersion,
  python: pythonVersion,
  processes: PROCESSES,
  per_process: PER_PROCESS,
  samples: SAMPLES,
  samples_per_step: SAMPLES,
  tries_per_sample: 5,
  runs,
};
writeResult('openrlhf-burst', result);
