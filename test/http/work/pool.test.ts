// An idle pool gives back the heap its workers grew while working (docs/concurrency.md, Memory).
import t from 'tap';
import { EXAMPLE_SCORE_REQUEST } from '../../../src/contracts/examples.js';
import { metricValue, testApp } from '../../support/app.js';

t.test('the workers run a full collection once the pool has been idle after work, and not again until it works', async (t) => {
  const app = await testApp({ WORKERS: 2 });
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
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const now = await metrics();
      if (now.count > before) return now;
    }
    throw new Error('no idle collection within 10 s');
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
