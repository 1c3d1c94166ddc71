// Run bookkeeping costs (part of `npm run bench`): scoring with step accounting against the stateless path
// in the same run, recording a 512-plan request and finalizing its step, and the state's size after
// 10,000 steps. On SQLite, or on PostgreSQL when STATE_URL is set (`npm run bench:runs:postgres` starts a
// throwaway cluster).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { mulberry32 } from '../src/common/rng.js';
import { Timings } from '../src/common/timings.js';
import { benchBatch } from './realistic-plans.js';
import { freshClientMs } from './fresh-client.js';
import { writeResult } from './results.js';
import { startBuiltService } from './service.js';
import { quantile as q } from './stats.js';

type Src<T> = T;
const dist = (p: string) => new URL(`../dist/${p}`, import.meta.url).href;
const { ConfigSchema } = (await import(dist('config.js'))) as Src<typeof import('../src/config.js')>;
const { startService } = (await import(dist('service/context.js'))) as Src<typeof import('../src/service/context.js')>;
const { scoreInRun } = (await import(dist('service/score-plan/in-run.js'))) as Src<typeof import('../src/service/score-plan/in-run.js')>;
const { pooledScorer } = (await import(dist('service/score-plan/pooled-scorer.js'))) as Src<typeof import('../src/service/score-plan/pooled-scorer.js')>;
const { completionCount } = (await import(dist('service/score-plan/split-groups.js'))) as Src<typeof import('../src/service/score-plan/split-groups.js')>;

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 100);
const HTTP_ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 40);
const fmt = (x: number, d = 2) => x.toFixed(d);

const STATE_URL = process.env.STATE_URL;
const dir = mkdtempSync(join(tmpdir(), 'bench-runs-'));
// The serving path on this thread (WORKERS=0), so that what is timed is the bookkeeping, not a hand-off.
const svc = await startService(ConfigSchema.parse({ STATE_DIR: dir, STATE_URL, WORKERS: '0', MAX_RUNS: '1000000' }));
const { ledger, store } = svc;
const judgedWith = { lambda_hard: svc.defaults.lambda_hard, reward_profile: svc.defaults.reward_profile };
const never = new AbortController().signal;
const batch = benchBatch(64, 8);

// 1. Stateless vs bookkeeping, interleaved; every bookkeeping round is a new step, so each one also
//    finalizes the previous step (the worst case: one request per step).
const stateless: number[] = [];
const booked: number[] = [];
const time = async (fn: () => Promise<unknown>) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};
const judging = { palette: undefined, limits: svc.planLimits, maxDepth: svc.maxJsonDepth, maxPlans: Infinity };
for (let i = 0; i < ROUNDS + 10; i++) {
  const plainReq = { ...batch, run_id: null };
  const runReq = { ...batch, run_id: 'bench', step: i };
  const scorer = (req: typeof plainReq | typeof runReq) =>
    pooledScorer(req, { groups: req.groups, plans: completionCount(req.groups) }, judging, svc.pool, never);
  const plain = () => scoreInRun(plainReq, undefined, svc, scorer(plainReq), never, new Timings());
  const withRun = () => scoreInRun(runReq, undefined, svc, scorer(runReq), never, new Timings());
  // Alternate which goes first, so neither always pays for the other's garbage.
  let a: number;
  let b: number;
  if (i % 2 === 0) {
    a = await time(plain);
    b = await time(withRun);
  } else {
    b = await time(withRun);
    a = await time(plain);
  }
  if (i >= 10) {
    stateless.push(a);
    booked.push(b);
  }
}

// 2. Recording a 512-plan request (one transaction: the plans' raw values, counters, receipt) and finalizing
//    its step (order-independent means, EMA, weights, one transaction).
const rand = mulberry32(3);
const raws = Array.from({ length: 512 }, () => ({ struct: rand(), pers: rand(), ped: rand() }));
const recordMs: number[] = [];
const finalizeMs: number[] = [];
for (let s = 0; s < 300; s++) {
  let t = performance.now();
  const tally = { raws, gated: 50, gateReasons: { cycle: 50 }, diversities: [0.4], flagged: 20, gaming: { duplicate_steps: 20 } };
  await ledger.count('finalize', s, tally, judgedWith, { key: `k${s}`, fingerprint: 'f' });
  recordMs.push(performance.now() - t);
  t = performance.now();
  await ledger.finalize('finalize');
  finalizeMs.push(performance.now() - t);
}

// 3. State size after 10,000 steps of one run (8 plans a step; the history holds one row per step), with
//    the bench's other runs deleted first.
await ledger.delete('bench');
await ledger.delete('finalize');
const t10k = performance.now();
const small = { raws: raws.slice(0, 8), gated: 1, gateReasons: { cycle: 1 }, diversities: [0.4], flagged: 1, gaming: { duplicate_steps: 1 } };
for (let s = 0; s < 10_000; s++) await ledger.count('size', s, small, judgedWith);
await ledger.finalize('size');
const tenKMs = performance.now() - t10k;
let dbBytes: number;
if (STATE_URL) {
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: STATE_URL });
  await c.connect();
  await c.query('VACUUM FULL');
  const r = await c.query<{ bytes: string }>(
    `SELECT sum(pg_total_relation_size(c.oid))::text AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind = 'r'`,
  );
  dbBytes = Number(r.rows[0]!.bytes);
  await c.end();
  await store.close();
} else {
  await store.close(); // closing checkpoints the WAL into the database file
  dbBytes = statSync(join(dir, 'runs.sqlite')).size;
}
rmSync(dir, { recursive: true, force: true });

// 4. What a trainer sees: the service started as `npm start` starts it, on the same engine, keys on, and a
//    client process of its own sending 64×8 stateless and into a run (each request a new step, under an
//    Idempotency-Key of its own) in turn.
const KEY = 'bench-score-key-0123456789';
const served = await startBuiltService({
  API_KEYS: `score:${KEY}`,
  STATE_DIR: mkdtempSync(join(tmpdir(), 'bench-runs-http-')),
  ...(STATE_URL ? { STATE_URL } : {}),
});
let overHttp: { stateless: number[]; run: number[] };
try {
  const auth = { authorization: `Bearer ${KEY}` };
  const {
    ms: [plainMs, runMs],
  } = await freshClientMs(
    `${served.base}/score-plan`,
    [
      { body: JSON.stringify({ ...batch, run_id: null }), headers: auth },
      { body: JSON.stringify({ ...batch, run_id: `bench-http-${Date.now()}` }), headers: auth, idempotencyKeys: true },
    ],
    HTTP_ROUNDS,
    5,
  );
  overHttp = { stateless: plainMs!, run: runMs! };
} finally {
  served.child.kill('SIGTERM');
}

const results = {
  engine: store.engine,
  batch: '64 groups × 8 plans',
  stateless_ms: { p50: q(stateless, 0.5), p99: q(stateless, 0.99) },
  bookkeeping_ms: { p50: q(booked, 0.5), p99: q(booked, 0.99) },
  bookkeeping_overhead_p50: q(booked, 0.5) / q(stateless, 0.5) - 1,
  record_512_plan_request_ms: { p50: q(recordMs, 0.5), p99: q(recordMs, 0.99) },
  finalize_512_plan_step_ms: { p50: q(finalizeMs, 0.5), p99: q(finalizeMs, 0.99) },
  ten_thousand_steps: { seconds: tenKMs / 1000, database_bytes: dbBytes, bytes_per_step: dbBytes / 10_000 },
  over_http_with_a_key: {
    rounds: HTTP_ROUNDS,
    stateless_ms: { p50: q(overHttp.stateless, 0.5) },
    run_ms: { p50: q(overHttp.run, 0.5) },
    run_over_stateless: q(overHttp.run, 0.5) / q(overHttp.stateless, 0.5),
  },
};
console.log(JSON.stringify(results, null, 2));
writeResult(store.engine === 'sqlite' ? 'runs' : `runs-${store.engine}`, results);
console.log(
  [
    `stateless  : p50 ${fmt(results.stateless_ms.p50)} ms, p99 ${fmt(results.stateless_ms.p99)} ms`,
    `with run   : p50 ${fmt(results.bookkeeping_ms.p50)} ms, p99 ${fmt(results.bookkeeping_ms.p99)} ms (${fmt(100 * results.bookkeeping_overhead_p50, 1)} % over stateless)`,
    `record     : p50 ${fmt(results.record_512_plan_request_ms.p50, 3)} ms, p99 ${fmt(results.record_512_plan_request_ms.p99, 3)} ms per 512-plan request`,
    `finalize   : p50 ${fmt(results.finalize_512_plan_step_ms.p50, 3)} ms, p99 ${fmt(results.finalize_512_plan_step_ms.p99, 3)} ms per 512-plan step`,
    `over HTTP  : 64×8 with a key, stateless p50 ${fmt(results.over_http_with_a_key.stateless_ms.p50)} ms, into a run p50 ${fmt(results.over_http_with_a_key.run_ms.p50)} ms (${fmt(results.over_http_with_a_key.run_over_stateless)}×; target ≤ ${results.engine === 'sqlite' ? '1.10' : '1.15'})`,
    `10,000 steps: ${fmt(results.ten_thousand_steps.seconds)} s, ${results.engine} state ${(dbBytes / 1024 / 1024).toFixed(2)} MiB (${Math.round(results.ten_thousand_steps.bytes_per_step)} B/step)`,
  ].join('\n'),
);
