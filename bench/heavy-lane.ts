// `npm run bench:heavy`: issue 47's heavy request, four random dense 15-step plans and a gold plan to
// /evaluate-plan (ten graph edit distances none of which its search can finish), against the service started
// as `npm start` starts it. Measures, over BENCH_ROUNDS rounds (default 3): that request alone; then the
// light routes (/health, /score-plan 8×8, /verify-turn N = 20), idle and while two such requests run, each
// sample the three sent at once, as long as both heavy requests are still running. Writes
// bench/results/heavy-lane.json. It sends no option a build before the GED budget lacks, so that
// `BENCH_ROOT=<another checkout, built>` measures that build the same way.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchBatch } from './realistic-plans.js';
import { writeResult } from './results.js';
import { MODELS_AT_START, startBuiltService } from './service.js';
import { randomDensePlan } from '../test/support/plans.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const root = process.env.BENCH_ROOT ? pathToFileURL(`${resolve(process.env.BENCH_ROOT)}/`) : undefined;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const round1 = (x: number) => Number(x.toFixed(1));

const { base, child } = await startBuiltService({ ...MODELS_AT_START, ...(process.env.WORKERS === undefined ? {} : { WORKERS: process.env.WORKERS }) }, root);

const dense = JSON.stringify({ plans: [1, 2, 3, 4].map((seed) => ({ plan: randomDensePlan(15, seed) })), gold: randomDensePlan(15, 9) });
const scorePlan = JSON.stringify({ ...benchBatch(8, 8), run_id: null });
const verifyTurn = JSON.stringify({
  task: {
    description: 'def running_total(xs): return the running totals of xs',
    dependencies: ['itertools.accumulate'],
    solution_steps: ['Keep a sum', 'Append the sum after each item'],
  },
  context: [
    { role: 'tutor', text: 'What should running_total([1, 2, 3]) return?' },
    { role: 'student', text: 'I think [1, 3, 6], but my loop prints something else.' },
  ],
  candidates: Array.from({ length: 20 }, (_, i) => `Candidate ${i}: what does your loop add at step ${i}?`),
});
const LIGHT: Record<string, () => Promise<Response>> = {
  '/health': () => fetch(`${base}/health`),
  '/score-plan 8×8': () => post('/score-plan', scorePlan),
  '/verify-turn N = 20': () => post('/verify-turn', verifyTurn),
};
const post = (path: string, body: string) => fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

/** Milliseconds to the whole answer, which must be a 200. */
async function timed(send: () => Promise<Response>): Promise<{ ms: number; body: string }> {
  const t = performance.now();
  const res = await send();
  const body = await res.text();
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${body.slice(0, 200)}`);
  return { ms: performance.now() - t, body };
}
/** The light routes at once; each one's time. */
const lightRound = async () =>
  Object.fromEntries(await Promise.all(Object.entries(LIGHT).map(async ([name, send]) => [name, (await timed(send)).ms] as const)));

interface Distance {
  exact: boolean;
}
const inexact = (body: string) => {
  const r = JSON.parse(body) as { plans: { metrics: { structural_similarity: Distance } }[]; cross: { pairs: Distance[] } };
  return [...r.plans.map((p) => p.metrics.structural_similarity), ...r.cross.pairs].filter((d) => !d.exact).length;
};

try {
  // Warm: the routes' code compiled and the encoder's cache in use, in both workers.
  for (let i = 0; i < 4; i++) await lightRound();

  const alone: number[] = [];
  let inexactAlone = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const { ms, body } = await timed(() => post('/evaluate-plan', dense));
    alone.push(ms);
    inexactAlone = inexact(body);
  }

  const idle: Record<string, number[]> = Object.fromEntries(Object.keys(LIGHT).map((k) => [k, []]));
  for (let i = 0; i < 5 * ROUNDS; i++) for (const [k, ms] of Object.entries(await lightRound())) idle[k]!.push(ms);

  const during: Record<string, number[]> = Object.fromEntries(Object.keys(LIGHT).map((k) => [k, []]));
  const heavy: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    let running = 2;
    const both = [0, 1].map(() =>
      timed(() => post('/evaluate-plan', dense)).then((x) => {
        running--;
        heavy.push(x.ms);
      }),
    );
    // Once both are on the pool (running or waiting for a worker), the light routes until one of them ends.
    for (;;) {
      const pool = ((await (await fetch(`${base}/ready`)).json()) as { pool: { running: number; queued: number } }).pool;
      if (pool.running + pool.queued >= 2) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    while (running === 2) for (const [k, ms] of Object.entries(await lightRound())) during[k]!.push(ms);
    await Promise.all(both);
  }

  const summary = (xs: number[]) => ({ samples: xs.length, median_ms: round1(median(xs)), max_ms: round1(Math.max(...xs)) });
  writeResult('heavy-lane', {
    workers: process.env.WORKERS ?? 'default (cores)',
    rounds: ROUNDS,
    dense_request: { bytes: Buffer.byteLength(dense), plans: 4, steps: 15, distances: 10 },
    dense_alone: { median_ms: round1(median(alone)), runs_ms: alone.map(round1), inexact_distances: inexactAlone },
    light_idle: Object.fromEntries(Object.entries(idle).map(([k, xs]) => [k, summary(xs)])),
    light_during_two_dense: Object.fromEntries(Object.entries(during).map(([k, xs]) => [k, summary(xs)])),
    dense_during_two_dense: { median_ms: round1(median(heavy)), max_ms: round1(Math.max(...heavy)) },
  });
} finally {
  child.kill('SIGTERM');
}
