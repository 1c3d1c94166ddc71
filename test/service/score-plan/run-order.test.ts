// With scoring on worker threads, a run's bookkeeping still happens in arrival order: the results are
// those of serving the requests one by one as they came.
import t from 'tap';
import { benchBatch } from '../../../bench/realistic-plans.js';
import { EXAMPLE_SCORE_REQUEST } from '../../../src/contracts/examples.js';
import { readyWhen, testApp } from '../../support/app.js';

const post = (base: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}/score-plan`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as { run: { step: number; status: string; counted: boolean; finalized: { step: number; plans: number; requests: number }[] } },
    replayed: r.headers.get('idempotent-replayed'),
  }));

t.test('a slow request of step 0 counts into step 0 even when a quick step-1 request arrives before it is scored', async (t) => {
  const app = await testApp({ WORKERS: 2 });
  t.teardown(() => app.close());
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  // One group is one task: it occupies one worker while the small request is scored on the other.
  const big = post(base, { ...benchBatch(1, 1024), run_id: 'order', step: 0 });
  // Its judging on a worker shows that it has arrived and holds its turn (a fixed pause was not enough
  // on a loaded machine: the small request could arrive first, and the big one was then rightly late).
  let settled = false;
  void big.finally(() => {
    settled = true;
  });
  await readyWhen(base, (p) => settled || p.running + p.queued > 0);
  const small = post(base, { ...EXAMPLE_SCORE_REQUEST, run_id: 'order', step: 1 });
  const [a, b] = await Promise.all([big, small]);
  t.same([a.status, b.status], [200, 200], JSON.stringify([a.body, b.body]).slice(0, 500));
  t.match(a.body.run, { step: 0, status: 'open', counted: true });
  t.match(b.body.run, { step: 1, status: 'open', counted: true });
  t.match(b.body.run.finalized, [{ step: 0, plans: 1024, requests: 1 }], 'step 0 folded once, with all its plans, by the later request');
});

t.test('concurrent requests of one step from several ranks all count into it; a duplicated key counts once', async (t) => {
  const app = await testApp({ WORKERS: 2 });
  t.teardown(() => app.close());
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const rank = (seed: number) => ({ ...benchBatch(16, 8, seed), run_id: 'ranks', step: 0 });
  const answers = await Promise.all([
    post(base, rank(1), { 'idempotency-key': 'rank-1' }),
    post(base, rank(1), { 'idempotency-key': 'rank-1' }),
    post(base, rank(2), { 'idempotency-key': 'rank-2' }),
    post(base, rank(3)),
  ]);
  t.same(
    answers.map((a) => a.status),
    [200, 200, 200, 200],
  );
  t.equal(answers.filter((a) => a.replayed === 'true').length, 1, 'one of the two rank-1 requests is the replay of the other');
  const fin = await fetch(`${base}/runs/ranks/finalize`, { method: 'POST' }).then(
    (r) => r.json() as Promise<{ finalized: { plans: number; requests: number } }>,
  );
  t.match(fin.finalized, { plans: 3 * 128, requests: 3 });
});
