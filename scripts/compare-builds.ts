// Two builds of the service side by side on one host, for a before/after table that a change in the
// host's load cannot skew: every figure is taken from each build in turn, the order flipped each round.
//
//   node --import tsx scripts/compare-builds.ts BEFORE_DIR AFTER_DIR [REPETITIONS]
//
// Each directory is a clone with its dependencies installed and `dist` built (`npm ci && npm run build`).
// Both builds get the same batches (this tree's benchBatch and freshBatch): in one process, their
// scoreGroups on 64×8 with JSON.parse of the same body and its completions as the floor, on the template
// batch and on fresh text (a new batch each round, every sentence new); over HTTP, each started as `npm
// start` starts it, with a STATE_DIR of its own, the 64×8 round trip from a fresh client process, fresh
// text each request; the bytes per plan of a 64×8 answer at the default detail and of what each build's
// Python client receives when TRL calls it, and that call ÷ its json floor (bench/python_client.py with the
// build's own client, fresh text each call); then each alone, its resident memory: idle, at its peak while
// four 4,096-plan requests of fresh text arrive at once, and 30 s after. Writes bench/results/compare-builds.json (rendered
// in docs/performance.md): per build, its commit, the median over repetitions of each repetition's median,
// and every repetition's figure.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freshRunText } from '../bench/fresh-plans.js';
import { benchBatch, parseBody } from '../bench/realistic-plans.js';
import { freshClientMs } from '../bench/fresh-client.js';
import { runTrlHarness, trlBatches } from '../bench/python-harness.js';
import { commitOf, writeResult } from '../bench/results.js';
import { residentMb, startBuiltService } from '../bench/service.js';

const [beforeDir, afterDir, reps = '3'] = process.argv.slice(2);
if (!beforeDir || !afterDir) throw new Error('usage: compare-builds.ts BEFORE_DIR AFTER_DIR [REPETITIONS]');
const REPETITIONS = Number(reps);
const IN_PROCESS_ROUNDS = Number(process.env.COMPARE_ROUNDS ?? 60);
const HTTP_ROUNDS = Number(process.env.COMPARE_HTTP_ROUNDS ?? 30);
const PYTHON_CALLS = Number(process.env.COMPARE_PYTHON_CALLS ?? 20);
const PYTHON_WARMUP = 5;

interface Build {
  name: 'before' | 'after';
  root: URL;
  score: (body: unknown) => unknown;
}

async function load(name: Build['name'], dir: string): Promise<Build> {
  const root = pathToFileURL(`${resolve(dir)}/`);
  const groups = await import(new URL('dist/scoring/score-groups.js', root).href);
  // The service's default limits (older builds do not export them).
  const limits = { maxCompletionBytes: 256 * 1024, maxStepsPerPlan: 1000 };
  return { name, root, score: (body) => groups.scoreGroups(body, limits, groups.DEFAULT_SCORING) };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const round = (x: number, digits = 2) => Number(x.toFixed(digits));
function parseMs(text: string): number {
  const t = performance.now();
  parseBody(text);
  return performance.now() - t;
}
// Fresh text counted into the default run; each round number a new batch.
let freshRound = 60_000;
const freshText = (groups = 64) => freshRunText(freshRound++, groups, 8);
const template = JSON.stringify(benchBatch(64, 8));

/** Each build's scoring ÷ JSON.parse, one repetition: the median over rounds of each round's ratio. */
function inProcess(builds: Build[], next: () => string): Record<string, number> {
  const ratios: Record<string, number[]> = { before: [], after: [] };
  for (let r = -5; r < IN_PROCESS_ROUNDS; r++) {
    const text = next();
    const floor = parseMs(text);
    for (const b of r % 2 ? builds : [...builds].reverse()) {
      const body = JSON.parse(text) as unknown;
      const t = performance.now();
      b.score(body);
      if (r >= 0) ratios[b.name]!.push((performance.now() - t) / floor);
    }
  }
  return { before: median(ratios.before!), after: median(ratios.after!) };
}

/** A build's resident memory: idle once ready, the peak while four 4,096-plan requests arrive at once, 30 s after. */
async function memory(b: Build): Promise<{ idle: number; peak: number; after_30s: number }> {
  const state = mkdtempSync(join(tmpdir(), 'compare-builds-'));
  const { base, child } = await startBuiltService({ STATE_DIR: state }, b.root);
  try {
    await new Promise((r) => setTimeout(r, 5000));
    const idle = residentMb(child.pid!);
    const bodies = Array.from({ length: 4 }, () => freshText(512));
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, residentMb(child.pid!))), 50);
    await Promise.all(
      bodies.map(async (body) => {
        const res = await fetch(`${base}/score-plan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${b.name}: HTTP ${res.status}`);
      }),
    );
    await new Promise((r) => setTimeout(r, 30_000));
    clearInterval(sampler);
    return { idle: round(idle, 0), peak: round(peak, 0), after_30s: round(residentMb(child.pid!), 0) };
  } finally {
    child.kill();
    rmSync(state, { recursive: true, force: true });
  }
}

const inProcessRuns = { template: { before: [] as number[], after: [] as number[] }, fresh: { before: [] as number[], after: [] as number[] } };
const httpRuns = { before: [] as number[], after: [] as number[] };
const pythonRuns = { before: [] as number[], after: [] as number[] };
const answerBytes = { default: { before: [] as number[], after: [] as number[] }, trl: { before: [] as number[], after: [] as number[] } };
const memoryRuns: Record<string, { idle: number; peak: number; after_30s: number }[]> = { before: [], after: [] };
const loads: number[] = [];

const builds = [await load('before', beforeDir), await load('after', afterDir)];
const states = builds.map(() => mkdtempSync(join(tmpdir(), 'compare-builds-')));
const services = await Promise.all(builds.map((b, i) => startBuiltService({ STATE_DIR: states[i]! }, b.root)));
try {
  for (let rep = 0; rep < REPETITIONS; rep++) {
    loads.push(loadavg()[0]!);
    const order = rep % 2 ? builds : [...builds].reverse();
    for (const [kind, next] of [
      ['template', () => template],
      ['fresh', () => freshText()],
    ] as const) {
      const r = inProcess(order, next);
      for (const b of builds) inProcessRuns[kind][b.name].push(r[b.name]!);
    }
    // The same fresh bodies to each build, after a warm-up body of the client's own.
    const bodies = [freshText(), ...Array.from({ length: HTTP_ROUNDS }, () => freshText())].map((body) => ({ body }));
    for (const b of order) {
      const { base } = services[builds.indexOf(b)]!;
      httpRuns[b.name].push(median((await freshClientMs(`${base}/score-plan`, bodies, 1, 0)).ms.slice(1).flat()));
      const res = await fetch(`${base}/score-plan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: freshText() });
      answerBytes.default[b.name].push((await res.arrayBuffer()).byteLength / 512);
    }
    // The same calls' batches to each build's client, into a run of its own.
    const file = join(states[0]!, `trl-${rep}.json`);
    writeFileSync(file, JSON.stringify({ batches: trlBatches(70_000 + rep * 100, PYTHON_WARMUP + PYTHON_CALLS) }));
    for (const b of order) {
      const run = runTrlHarness(b.root, services[builds.indexOf(b)]!.base, file, PYTHON_WARMUP, PYTHON_CALLS);
      pythonRuns[b.name].push(median(run.call_ms.map((ms, i) => ms / run.floor_ms[i]!)));
      answerBytes.trl[b.name].push(run.response_bytes / 512);
    }
  }
} finally {
  for (const s of services) s.child.kill();
  for (const d of states) rmSync(d, { recursive: true, force: true });
}
for (let rep = 0; rep < REPETITIONS; rep++) for (const b of rep % 2 ? builds : [...builds].reverse()) memoryRuns[b.name]!.push(await memory(b));

const figure = (runs: { before: number[]; after: number[] }, digits = 2) =>
  Object.fromEntries(builds.map((b) => [b.name, { median: round(median(runs[b.name]), digits), runs: runs[b.name].map((x) => round(x, digits)) }]));
writeResult('compare-builds', {
  repetitions: REPETITIONS,
  in_process_rounds: IN_PROCESS_ROUNDS,
  http_rounds: HTTP_ROUNDS,
  loadavg_1min: loads.map((x) => round(x)),
  builds: { before: commitOf(beforeDir), after: commitOf(afterDir) },
  scoring_over_json_parse_64x8: { fresh: figure(inProcessRuns.fresh), template: figure(inProcessRuns.template) },
  http_64x8_fresh_p50_ms: figure(httpRuns, 1),
  python_trl_call_over_json_floor: figure(pythonRuns),
  python_calls: PYTHON_CALLS,
  answer_bytes_per_plan_64x8: { default_detail: figure(answerBytes.default, 0), trl_client: figure(answerBytes.trl, 0) },
  rss_mb: Object.fromEntries(
    builds.map((b) => [b.name, Object.fromEntries((['idle', 'peak', 'after_30s'] as const).map((k) => [k, median(memoryRuns[b.name]!.map((m) => m[k]))]))]),
  ),
  rss_mb_runs: memoryRuns,
});
