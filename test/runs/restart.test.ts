import t from 'tap';
import type { RunView } from '../../src/contracts/runs.js';
import { EXAMPLE_SCORE_REQUEST } from '../../src/contracts/examples.js';
import { tempStateDir } from '../support/app.js';
import { startService } from '../support/service.js';

const json = async (base: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(base + path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return (await res.json()) as unknown;
};

t.test('kill -9 mid-run: the restarted service continues with the finalized state intact', async (t) => {
  const stateDir = tempStateDir();
  const first = await startService({ STATE_DIR: stateDir });
  t.teardown(() => first.child.kill('SIGKILL'));
  await json(first.base, 'PUT', '/runs/k', { t_warm: 1, t_refresh: 2, alpha: 0.3 });
  for (let step = 0; step < 12; step++) await json(first.base, 'POST', '/score-plan', { ...EXAMPLE_SCORE_REQUEST, run_id: 'k', step });
  const before = (await json(first.base, 'GET', '/runs/k')) as RunView;
  t.equal(before.last_finalized_step, 10);
  t.equal(before.open_step?.step, 11);
  first.child.kill('SIGKILL');
  t.equal(await first.exited, null, 'killed, not exited');

  const second = await startService({ STATE_DIR: stateDir });
  t.teardown(() => second.child.kill('SIGKILL'));
  const after = (await json(second.base, 'GET', '/runs/k')) as RunView;
  t.same({ ...after, open_step: null }, { ...before, open_step: null }, 'config, weights, EMA and counters as finalized before the kill');
  for (const k of ['struct', 'pers', 'ped'] as const) t.equal(after.weights[k], before.weights[k]);
  t.equal(after.open_step, null, 'only the unfinalized step 11 was lost');
  const history = (await json(second.base, 'GET', '/runs/k/history')) as { total: number };
  t.equal(history.total, 11);
  const resumed = (await json(second.base, 'POST', '/score-plan', { ...EXAMPLE_SCORE_REQUEST, run_id: 'k', step: 11 })) as { run: { status: string; weights: unknown } };
  t.same([resumed.run.status, resumed.run.weights], ['open', before.weights], 'step 11 re-sent after the restart opens with the same weights');
});
