import t from 'tap';
import { EXAMPLE_SCORE_REQUEST } from '../../src/contracts/examples.js';
import { testApp } from '../support/app.js';

const app = await testApp();
t.teardown(() => app.close());

/** A Server-Timing value as [stage, ms] pairs, every part checked. */
function stages(header: unknown): [string, number][] {
  if (typeof header !== 'string') throw new Error(`no Server-Timing header: ${String(header)}`);
  return header.split(', ').map((part) => {
    const m = /^([a-z]+);dur=(\d+\.\d)$/.exec(part);
    if (!m) throw new Error(`not a stage;dur=ms part: ${part}`);
    return [m[1]!, Number(m[2])];
  });
}

const post = (payload: object, url = '/score-plan') => app.inject({ method: 'POST', url, payload });

t.test('stateless /score-plan: read, judge, compose, then total, each within the total', async (t) => {
  const res = await post({ ...EXAMPLE_SCORE_REQUEST, run_id: null });
  t.equal(res.statusCode, 200);
  const s = stages(res.headers['server-timing']);
  t.same(
    s.map(([stage]) => stage),
    ['read', 'judge', 'compose', 'total'],
  );
  const total = s.at(-1)![1];
  // Tenths, rounded each on its own: a stage can read 0.1 more than the total it lies in.
  for (const [stage, ms] of s) t.ok(ms <= total + 0.1, `${stage} ${ms} ms within the total ${total} ms`);
});

t.test('into a run: the run store is timed too, and a retry with its key as well', async (t) => {
  const body = { ...EXAMPLE_SCORE_REQUEST, run_id: 'timed', step: 0 };
  const headers = { 'idempotency-key': 'timed-0' };
  const first = await app.inject({ method: 'POST', url: '/score-plan', payload: body, headers });
  t.equal(first.statusCode, 200);
  t.same(new Set(stages(first.headers['server-timing']).map(([s]) => s)), new Set(['read', 'judge', 'store', 'compose', 'total']));
  const retry = await app.inject({ method: 'POST', url: '/score-plan', payload: body, headers });
  t.equal(retry.headers['idempotent-replayed'], 'true');
  t.ok(stages(retry.headers['server-timing']).some(([s]) => s === 'store'));
});

t.test('every other answer says at least its total: a refused body, a probe, a route that times nothing else', async (t) => {
  const refused = await post({ groups: 'none' });
  t.equal(refused.statusCode, 400);
  t.same(
    stages(refused.headers['server-timing']).map(([s]) => s),
    ['total'],
    'refused in validation: no handler ran',
  );
  const health = await app.inject({ method: 'GET', url: '/health' });
  t.same(
    stages(health.headers['server-timing']).map(([s]) => s),
    ['read', 'total'],
  );
  const missing = await app.inject({ method: 'GET', url: '/no-such-route' });
  t.equal(missing.statusCode, 404);
  t.ok(stages(missing.headers['server-timing']).some(([s]) => s === 'total'));
});
