// A resting process gives back what its threads grew while working, and replaces its workers above IDLE_RSS_MB (docs/concurrency.md, Memory).
// IDLE_COLLECT_MS is small here, so a test waits for the rest it needs, not for a fixed time. That something
// does not happen is shown by an event ordered after the moment it would have begun: a timer of the same
// length, set after the pool's would have been, fires after it (Node runs equal timers in the order they were set),
// and a collection puts its tasks in the pool before it yields.
import t from 'tap';
import { getHeapSpaceStatistics } from 'node:v8';
import type { FastifyInstance } from 'fastify';
import { EXAMPLE_SCORE_REQUEST } from '../../../src/contracts/examples.js';
import { TraceKnowledgeRequestSchema } from '../../../src/contracts/trace-knowledge.js';
import { VerifyTurnRequestSchema } from '../../../src/contracts/verify-turn.js';
import { reuseShared, sharedBytes } from '../../../src/common/movable-bytes.js';
import { holdLoads, loadsRunning } from '../../../src/service/pool/model-flags.js';
import { collectTask } from '../../../src/service/tasks/memory.js';
import { example, metricValue, testApp, until } from '../../support/app.js';
import { never, testPool } from '../../support/pool.js';

const IDLE_COLLECT_MS = 50;
const rest = () => new Promise((r) => setTimeout(r, IDLE_COLLECT_MS));

/** The pool's counters in one reading of /metrics (prom-client reads every collector in one synchronous pass). */
async function poolMetrics(app: FastifyInstance) {
  const m = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  return {
    count: metricValue(m, 'tutor_pool_idle_collections_total'),
    freed: metricValue(m, 'tutor_pool_collected_bytes_total'),
    heap: metricValue(m, 'tutor_pool_heap_after_collection_bytes'),
    replaced: metricValue(m, 'tutor_pool_workers_replaced_total'),
    busy: metricValue(m, 'tutor_pool_running') + metricValue(m, 'tutor_pool_queued'),
  };
}

t.test('the workers run a full collection once the pool has been idle after work, and not again until it works', async (t) => {
  // IDLE_RSS_MB=1: the process is always above it, so every rest after work collects, then replaces.
  const app = await testApp({ WORKERS: 2, IDLE_RSS_MB: 1, IDLE_COLLECT_MS });
  t.teardown(() => app.close());
  // 1,024 plans over both workers leave garbage behind: parsed plans, their graphs, the detail texts. In
  // groups of 256, each a task of its own, what a task allocates outlives the young generation.
  const [group] = EXAMPLE_SCORE_REQUEST.groups;
  const groups = Array.from({ length: 4 }, (_, i) => ({
    ...group!,
    id: `g${i}`,
    completions: Array.from({ length: 256 }, (_, k) => group!.completions[k % 2]!),
  }));
  t.equal((await poolMetrics(app)).count, 0, 'no collection before any work');
  const kept = sharedBytes(1 << 20);
  reuseShared(kept);
  t.equal((await app.inject({ method: 'POST', url: '/score-plan', payload: { groups } })).statusCode, 200);
  // The rest collects, then (still above 1 MiB) replaces both workers; the second counts as the round ends.
  await until('a collection and its round of replacements', async () => (await poolMetrics(app)).replaced === 2);
  const first = await poolMetrics(app);
  t.equal(first.count, 1, 'one collection');
  t.ok(first.freed > 0, `the collection gave back ${(first.freed / 2 ** 20).toFixed(1)} MiB of worker heap`);
  t.ok(first.heap > 0, `the workers' heaps after it: ${(first.heap / 2 ** 20).toFixed(1)} MiB`);
  t.not(sharedBytes(1 << 20).buffer, kept.buffer, 'the buffer kept for the next large body is let go too');

  // A rest armed by the round's last task would have begun before this timer fires.
  await rest();
  t.match(await poolMetrics(app), { count: 1, busy: 0 }, 'an idle pool that did no work since does not collect again');

  const next = { groups: groups.slice(0, 2) };
  t.equal((await app.inject({ method: 'POST', url: '/score-plan', payload: next })).statusCode, 200, 'the collected workers serve the next request');
  await until('the next collection', async () => (await poolMetrics(app)).count > 1);
  t.equal((await poolMetrics(app)).count, 2, 'which is followed by one more collection');
});

t.test('a resting process above IDLE_RSS_MB replaces its workers, one at a time, and answers as before', async (t) => {
  const app = await testApp({ WORKERS: 2, IDLE_RSS_MB: 1, IDLE_COLLECT_MS });
  t.teardown(() => app.close());
  const requests = [
    { url: '/verify-turn', payload: example(VerifyTurnRequestSchema) },
    { url: '/score-plan', payload: { ...EXAMPLE_SCORE_REQUEST, run_id: null } },
    { url: '/trace-knowledge', payload: example(TraceKnowledgeRequestSchema) },
  ];
  const answers = async () => {
    const out: string[] = [];
    for (const r of requests) {
      const res = await app.inject({ method: 'POST', ...r });
      t.equal(res.statusCode, 200, `${r.url}: ${res.body.slice(0, 200)}`);
      out.push(res.body.replace(/"latency_ms":[0-9.e+-]+/g, ''));
    }
    return out;
  };
  const before = await answers();
  // Rests may come between the requests too; each round retires the oldest workers first.
  await until('both first workers replaced', async () => (await poolMetrics(app)).replaced >= 2);
  t.same(await answers(), before, 'the fresh workers give the same answers');
  t.match((await app.inject({ method: 'GET', url: '/ready' })).json(), { ready: true }, 'and the service stays ready');
});

t.test('a request during a replacement is served by the other worker, and the round stops there', async (t) => {
  const { pool, models } = await testPool({ idleRssMb: 1, idleCollectMs: IDLE_COLLECT_MS });
  t.teardown(() => pool.close());
  // Any task is work; this one needs no model, so the replacements below load none (pool-close.test.ts loads one).
  const work = () => pool.run('collectTask', null, never());
  await pool.each('collectTask', null);
  // In the same turn as the work's end, before its rest can start a replacement: a replacement now stays
  // inside its model load until released, so the round waits for it.
  holdLoads(models, true);
  // A worker counts as replaced once its replacement is ready: this one is not.
  await until('the first replacement inside its load', async () => loadsRunning(models) === 1);
  t.same([pool.collections().count, pool.collections().replaced], [1, 0], 'the rest collected and retired a worker');
  t.ok((await work()).after > 0, 'a request is served while the replacement loads');
  // The rest after the request begins before this timer fires; it waits for the round, which waits for the load.
  await rest();
  t.same([pool.collections().count, pool.status().running + pool.status().queued], [1, 0], 'no collection or second round beside the waiting one');

  // Every state from here on, once per turn of the event loop (each worker's message is a turn of its own).
  const seen = new Set<string>();
  let watching = true;
  const watch = () => {
    const c = pool.collections();
    seen.add(`${c.count} collections, ${c.replaced} replaced`);
    if (watching) setImmediate(watch);
  };
  watch();
  holdLoads(models, false);
  // The round sees the request and stops; the rest it armed then collects and replaces the old worker first,
  // then the one that was fresh before that round began.
  await until('the next round', async () => pool.collections().replaced === 3);
  watching = false;
  t.notOk(seen.has('1 collections, 2 replaced'), `the first round retired no second worker: ${[...seen].join('; ')}`);
  t.equal(pool.collections().count, 2);
});

t.test('a resting process under IDLE_RSS_MB collects and lets the kept body buffer go, but replaces no worker', async (t) => {
  const app = await testApp({ WORKERS: 2, IDLE_RSS_MB: 1_000_000, IDLE_COLLECT_MS });
  t.teardown(() => app.close());
  const kept = sharedBytes(1 << 20);
  reuseShared(kept);
  t.equal((await app.inject({ method: 'POST', url: '/verify-turn', payload: example(VerifyTurnRequestSchema) })).statusCode, 200);
  await until('the collection of the rest', async () => (await poolMetrics(app)).count === 1);
  // A replacement round would have begun in the same turn as the collection's end, before this timer fires.
  await rest();
  t.match(await poolMetrics(app), { count: 1, replaced: 0, busy: 0 }, 'a collection, no replacement');
  t.not(sharedBytes(1 << 20).buffer, kept.buffer, 'the buffer kept for the next large body is let go');
});

t.test('a collection shrinks the young generation traffic grew, which a plain full collection keeps', async (t) => {
  const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size;
  // Objects that live across a few scavenges make V8 grow the young generation.
  const grow = () => {
    let kept: object[][] = [];
    for (let r = 0; r < 200; r++) {
      kept.push(Array.from({ length: 20_000 }, (_, i) => ({ i, s: `x${i}` })));
      if (kept.length > 5) kept.shift();
    }
    kept = [];
  };
  grow();
  const grown = young();
  await collectTask(null, () => false);
  t.ok(young() < grown, `young generation ${(grown / 2 ** 20).toFixed(0)} → ${(young() / 2 ** 20).toFixed(0)} MiB`);
});

t.test("a collection leaves a worker's semi-space at the pool's smallest, not V8's 1 MiB, from which it grew back slowly", async (t) => {
  const { pool } = await testPool();
  t.teardown(() => pool.close());
  const heaps = await pool.each('collectTask', null);
  t.equal(heaps.length, 2);
  for (const h of heaps) t.ok(h.young >= 4 * 2 ** 20, `worker ${h.thread}: young generation ${(h.young / 2 ** 20).toFixed(1)} MiB`);
});

t.test('a model load warms the model in every worker: each runs one inference, its first, before any request', async (t) => {
  const { pool } = await testPool();
  t.teardown(() => pool.close());
  t.same(pool.encoderCache(), { hits: 0, misses: 0 }, 'nothing embedded before the load');
  t.same(await pool.each('loadTask', 'encoder'), ['use-lite', 'use-lite'], 'loaded in both workers');
  // Each worker has a cache of its own: one miss each means each worker ran its encoder once.
  t.same(pool.encoderCache(), { hits: 0, misses: 2 }, "each worker's warm-up embedded its text");
});
