// Acknowledged means durable: a request answered `counted: true` survives kill -9, and its retry after the
// restart is recognised (with or without a step), on both engines.
import t from 'tap';
import type { RunView } from '../../src/contracts/runs.js';
import { EXAMPLE_SCORE_REQUEST } from '../../src/contracts/examples.js';
import { startService } from '../support/service.js';
import { ENGINES, stateSettings } from '../support/stores.js';

const call = async (base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as Record<string, unknown>;
};

for (const engine of ENGINES) {
  t.test(`${engine}: kill -9 mid-step loses nothing acknowledged, and retries are not counted twice`, async (t) => {
    const state = await stateSettings(engine);
    const first = await startService({ ...state, WORKERS: '1' });
    t.teardown(() => first.child.kill('SIGKILL'));
    await call(first.base, 'PUT', '/runs/k', { t_warm: 1, t_refresh: 2, alpha: 0.3 });
    for (let step = 0; step < 12; step++)
      await call(first.base, 'POST', '/score-plan', { ...EXAMPLE_SCORE_REQUEST, run_id: 'k', step }, { 'idempotency-key': `s${step}` });
    // Step-less requests in another run: the service numbers their steps.
    const auto = await call(first.base, 'POST', '/score-plan', { ...EXAMPLE_SCORE_REQUEST, run_id: 'auto' }, { 'idempotency-key': 'a0' });
    const before = (await call(first.base, 'GET', '/runs/k')) as unknown as RunView;
    t.equal(before.last_finalized_step, 10);
    t.same([before.open_step?.step, before.open_step?.requests, before.open_step?.plans], [11, 1, 3]);
    first.child.kill('SIGKILL');
    t.equal(await first.exited, null, 'killed, not exited');

    const second = await startService({ ...state, WORKERS: '1' });
    t.teardown(() => second.child.kill('SIGKILL'));
    const after = (await call(second.base, 'GET', '/runs/k')) as unknown as RunView;
    t.same(after, before, 'config, weights, EMA, counters and the open step 11, as acknowledged');
    for (const k of ['struct', 'pers', 'ped'] as const) t.equal(after.weights[k], before.weights[k]);

    const retried = await call(second.base, 'POST', '/score-plan', { ...EXAMPLE_SCORE_REQUEST, run_id: 'k', step: 11 }, { 'idempotency-key': 's11' });
    t.same((retried.run as { step: number; counted: boolean }).step, 11);
    t.same(((await call(second.base, 'GET', '/runs/k')) as unknown as RunView).open_step?.requests, 1, 'the retry of step 11 was recognised');
    const autoAgain = await call(second.base, 'POST', '/score-plan', { ...EXAMPLE_SCORE_REQUEST, run_id: 'auto' }, { 'idempotency-key': 'a0' });
    t.same(autoAgain, auto, 'a step-less retry gets the same answer');
    t.equal(((await call(second.base, 'GET', '/runs/auto/history')) as { total: number }).total, 1, 'and no second step');

    const fresh = await call(second.base, 'POST', '/score-plan', { ...EXAMPLE_SCORE_REQUEST, run_id: 'k', step: 12 });
    const folded = (fresh.run as { finalized: { step: number; requests: number; plans: number }[] }).finalized;
    t.same(
      folded.map((r) => [r.step, r.requests, r.plans]),
      [[11, 1, 3]],
      'step 11 folds in once, whole',
    );
  });
}
