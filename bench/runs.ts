// Run bookkeeping costs (part of `npm run bench`): scoring with step accounting against the stateless path
// in the same run, recording a 512-plan request and finalizing its step, and the state's size after
// 10,000 steps. On SQLite, or on PostgreSQL when STATE_URL is set (`npm run bench:runs:postgres` starts a
// throwaway cluster).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { mulberry32 } from '../src/common/rng.js';
import { benchBatch } from './realistic-plans.js';

type Src<T> = T;
const dist = (p: string) => new URL(`../dist/${p}`, import.meta.url).href;
const { openRunStore } = (await import(dist('runs/open-store.js'))) as Src<typeof import('../src/runs/open-store.js')>;
const { RunLedger } = (await import(dist('runs/ledger.js'))) as Src<typeof import('../src/runs/ledger.js')>;
const { ReplyCache } = (await import(dist('runs/idempotency.js'))) as Src<typeof import('../src/runs/idempotency.js')>;
const { scoreInRun, localScorer } = (await import(dist('runs/score-in-run.js'))) as Src<typeof import('../src/runs/score-in-run.js')>;
const { RunTurns } = (await import(dist('runs/turns.js'))) as Src<typeof import('../src/runs/turns.js')>;
const { DEFAULT_SCORING } = (await import(dist('scoring/score-groups.js'))) as Src<typeof import('../src/scoring/score-groups.js')>;

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 100);
const limits = { maxCompletionBytes: 256 * 1024, maxStepsPerPlan: 1000 };
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const fmt = (x: number, d = 2) => x.toFixed(d);

const STATE_URL = process.env.STATE_URL;
const dir = mkdtempSync(join(tmpdir(), 'bench-runs-'));
const store = await openRunStore(STATE_URL, dir);
const judgedWith = { lambda_hard: 10, reward_profile: 'paper' } as const;
const ledger = new RunLedger(store, { ...judgedWith, maxRuns: 1_000_000 });
const deps = { ledger, replies: new ReplyCache(64 * 1024 * 1024), turns: new RunTurns(), serviceDefaults: DEFAULT_SCORING };
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
for (let i = 0; i < ROUNDS + 10; i++) {
  const plainReq = { ...batch, run_id: null };
  const runReq = { ...batch, run_id: 'bench', step: i };
  const plain = () => scoreInRun(plainReq, undefined, deps, localScorer(plainReq, limits), never);
  const withRun = () => scoreInRun(runReq, undefined, deps, localScorer(runReq, limits), never);
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

const results = {
  engine: store.engine,
  batch: '64 groups × 8 plans',
  stateless_ms: { p50: q(stateless, 0.5), p99: q(stateless, 0.99) },
  bookkeeping_ms: { p50: q(booked, 0.5), p99: q(booked, 0.99) },
  bookkeeping_overhead_p50: q(booked, 0.5) / q(stateless, 0.5) - 1,
  record_512_plan_request_ms: { p50: q(recordMs, 0.5), p99: q(recordMs, 0.99) },
  finalize_512_plan_step_ms: { p50: q(finalizeMs, 0.5), p99: q(finalizeMs, 0.99) },
  ten_thousand_steps: { seconds: tenKMs / 1000, database_bytes: dbBytes, bytes_per_step: dbBytes / 10_000 },
};
console.log(JSON.stringify(results, null, 2));
console.log(
  [
    `stateless  : p50 ${fmt(results.stateless_ms.p50)} ms, p99 ${fmt(results.stateless_ms.p99)} ms`,
    `with run   : p50 ${fmt(results.bookkeeping_ms.p50)} ms, p99 ${fmt(results.bookkeeping_ms.p99)} ms (${fmt(100 * results.bookkeeping_overhead_p50, 1)} % over stateless)`,
    `record     : p50 ${fmt(results.record_512_plan_request_ms.p50, 3)} ms, p99 ${fmt(results.record_512_plan_request_ms.p99, 3)} ms per 512-plan request`,
    `finalize   : p50 ${fmt(results.finalize_512_plan_step_ms.p50, 3)} ms, p99 ${fmt(results.finalize_512_plan_step_ms.p99, 3)} ms per 512-plan step`,
    `10,000 steps: ${fmt(results.ten_thousand_steps.seconds)} s, ${results.engine} state ${(dbBytes / 1024 / 1024).toFixed(2)} MiB (${Math.round(results.ten_thousand_steps.bytes_per_step)} B/step)`,
  ].join('\n'),
);
