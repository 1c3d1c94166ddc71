// A resting process above IDLE_RSS_MB gives back what its workers grew while working (docs/concurrency.md, Memory).
import t from 'tap';
import { EXAMPLE_SCORE_REQUEST } from '../../../src/contracts/examples.js';
import { TraceKnowledgeRequestSchema } from '../../../src/contracts/trace-knowledge.js';
import { VerifyTurnRequestSchema } from '../../../src/contracts/verify-turn.js';
import { appMetric as metric, example, metricValue, testApp, until } from '../../support/app.js';

t.test('the workers run a full collection once the pool has been idle after work, and not again until it works', async (t) => {
  // IDLE_RSS_MB=1: the process is always above it, so every rest after work collects (and then replaces).
  const app = await testApp({ WORKERS: 2, IDLE_RSS_MB: 1 });
  t.teardown(() => app.close());
  const metrics = async () => {
    const m = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    return {
      count: metricValue(m, 'tutor_pool_idle_collections_total'),
      freed: metricValue(m, 'tutor_pool_collected_bytes_total'),
      heap: metricValue(m, 'tutor_pool_heap_after_collection_bytes'),
    };
  };
  const settled = async () => {
    const before = (await metrics()).count;
    let now = await metrics();
    await until('an idle collection', async () => (now = await metrics()).count > before, 10_000);
    return now;
  };
  // 2,048 plans over both workers leave garbage behind: parsed plans, their graphs, the detail texts. In
  // groups of 256, each a task of its own, what a task allocates outlives the young generation.
  const [group] = EXAMPLE_SCORE_REQUEST.groups;
  const groups = Array.from({ length: 8 }, (_, i) => ({
    ...group!,
    id: `g${i}`,
    completions: Array.from({ length: 256 }, (_, k) => group!.completions[k % 2]!),
  }));
  const started = performance.now();
  t.equal((await app.inject({ method: 'POST', url: '/score-plan', payload: { groups } })).statusCode, 200);
  const first = await settled();
  const after = performance.now() - started;
  t.ok(after >= 2000, `collected ${after.toFixed(0)} ms after the request started, once the pool had rested 2 s`);
  t.ok(first.freed > 0, `the collection gave back ${(first.freed / 2 ** 20).toFixed(1)} MiB of worker heap`);
  t.ok(first.heap > 0, `the workers' heaps after it: ${(first.heap / 2 ** 20).toFixed(1)} MiB`);

  await new Promise((r) => setTimeout(r, 2500));
  t.equal((await metrics()).count, first.count, 'an idle pool that did no work since does not collect again');

  t.equal((await app.inject({ method: 'POST', url: '/score-plan', payload: { groups } })).statusCode, 200, 'the collected workers serve the next request');
  const second = await settled();
  t.equal(second.count, first.count + 1, 'which is followed by one more collection');
});

t.test('a resting process above IDLE_RSS_MB replaces its workers, one at a time, and answers as before', async (t) => {
  const app = await testApp({ WORKERS: 2, IDLE_RSS_MB: 1 });
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
  const replaced = () => metric(app, 'tutor_pool_workers_replaced_total');
  const before = await answers();
  await until('both workers replaced', async () => (await replaced()) === 2);
  t.same(await answers(), before, 'the fresh workers give the same answers');
  t.match((await app.inject({ method: 'GET', url: '/ready' })).json(), { ready: true }, 'and the service stays ready');

  // The next rest: once the first worker is retired, a request that needs a worker arrives (the example
  // /score-plan is judged on the main thread); it is served and the round stops there, even though the
  // request is done before the round would retire the next worker, so a request never waits for two
  // replacements.
  await until('the next round started', async () => (await replaced()) === 3);
  const during = await app.inject({ method: 'POST', ...requests[0]! });
  t.equal(during.statusCode, 200, 'a request during the replacement is served');
  await new Promise((r) => setTimeout(r, 1500));
  const after = await replaced();
  t.ok(after === 3 || after === 5, `the round stopped when work arrived (${after} replaced: 3, or 5 if the next rest came)`);
});

// A collection costs the requests after it: the heap it gave back is faulted in again and the young
// generation grows back (the first 64×8 request after a 4 s rest took 213–249 ms with it, 82–120 without).
t.test('a resting process under IDLE_RSS_MB neither collects nor replaces its workers', async (t) => {
  const app = await testApp({ WORKERS: 2, IDLE_RSS_MB: 1_000_000 });
  t.teardown(() => app.close());
  t.equal((await app.inject({ method: 'POST', url: '/verify-turn', payload: example(VerifyTurnRequestSchema) })).statusCode, 200);
  await new Promise((r) => setTimeout(r, 3000));
  t.equal(await metric(app, 'tutor_pool_idle_collections_total'), 0, 'no collection');
  t.equal(await metric(app, 'tutor_pool_workers_replaced_total'), 0, 'no replacement');
});
