import t from 'tap';
import { INITIAL_WEIGHTS, type AxisVector } from '../../src/grpo/compose.js';
import { orderIndependentMean } from '../../src/grpo/stats.js';
import { RunLedger } from '../../src/runs/ledger.js';
import { RunStore } from '../../src/runs/store.js';
import { tempStateDir } from '../support/app.js';

const v = (struct: number, pers: number, ped: number): AxisVector => ({ struct, pers, ped });
const fresh = (dir = tempStateDir()) => {
  const store = new RunStore(dir);
  return { dir, store, ledger: new RunLedger(store, { lambda_hard: 10 }) };
};
const send = (ledger: RunLedger, run: string, step: number | undefined, raws: AxisVector[], gated = 0) => {
  const ticket = ledger.enter(run, step);
  return { ticket, finalized: ledger.record(ticket, raws, gated) };
};

t.test('a step folds in once, when a later step arrives, from the mean over all its plans', async (t) => {
  const { ledger, store } = fresh();
  t.teardown(() => store.close());
  ledger.configure('r', { t_warm: 0, t_refresh: 1 });
  send(ledger, 'r', 0, [v(1, 0, 0.5), v(0.5, 0, 0.5)], 1);
  send(ledger, 'r', 0, [v(0, 0.25, 1)]);
  t.equal(ledger.get('r')!.open_step?.plans, 3);
  t.equal(ledger.get('r')!.last_finalized_step, null);
  const { finalized } = send(ledger, 'r', 1, [v(1, 1, 1)]);
  t.equal(finalized.length, 1);
  const row = finalized[0]!;
  t.same(row.mean, v(orderIndependentMean([1, 0.5, 0]), orderIndependentMean([0, 0, 0.25]), orderIndependentMean([0.5, 0.5, 1])));
  t.same([row.step, row.plans, row.gated, row.requests, row.gated_fraction], [0, 3, 1, 2, 1 / 3]);
  t.same(row.weights, INITIAL_WEIGHTS, 'step 0 composed with w₀');
  t.same(row.ema, row.mean, 'EMA initialized with the first step mean');
  t.equal(row.refreshed, true);
  t.not(row.weights_after.pers, INITIAL_WEIGHTS.pers);
  t.same(ledger.get('r')!.weights, row.weights_after);
  t.same(ledger.enter('r', 1).weights, row.weights_after, 'step 1 began once step 0 was finalized, with the refreshed weights');
});

t.test('every plan of a step uses the weights in force when the step began', async (t) => {
  const { ledger, store } = fresh();
  t.teardown(() => store.close());
  ledger.configure('r', { t_warm: 0, t_refresh: 1 });
  send(ledger, 'r', 0, [v(1, 0, 1)]);
  const opening = send(ledger, 'r', 1, [v(1, 0, 1)]).ticket;
  t.notSame(opening.weights, INITIAL_WEIGHTS, 'step 1 began after step 0 refreshed the weights');
  const joining = send(ledger, 'r', 1, [v(0, 0, 0)]).ticket;
  t.same(joining.weights, opening.weights);
  t.equal(joining.status, 'open');
});

t.test('late requests: scored with their step weights, reported, never folded in', async (t) => {
  const { ledger, store } = fresh();
  t.teardown(() => store.close());
  ledger.configure('r', { t_warm: 0, t_refresh: 1 });
  send(ledger, 'r', 0, [v(1, 0, 1)]);
  send(ledger, 'r', 2, [v(1, 0, 1)]);
  const w2 = ledger.enter('r', 2).weights;
  send(ledger, 'r', 3, [v(1, 0, 1)]);
  const before = ledger.get('r')!;
  const late0 = send(ledger, 'r', 0, [v(0, 0, 0)]).ticket;
  t.same([late0.status, late0.counted], ['late', false]);
  t.same(late0.weights, INITIAL_WEIGHTS);
  const late1 = send(ledger, 'r', 1, [v(0, 0, 0)]).ticket;
  t.same(late1.weights, w2, 'a skipped step gets the weights in force after the last finalized step before it');
  t.same(send(ledger, 'r', 2, [v(0, 0, 0), v(0, 0, 0)]).ticket.weights, w2);
  const after = ledger.get('r')!;
  t.same([after.ema, after.weights, after.last_finalized_step], [before.ema, before.weights, before.last_finalized_step]);
  const rows = ledger.history('r', 0, 10).rows;
  t.same(rows.map((r) => [r.step, r.late_plans]), [[0, 1], [2, 2]]);
});

t.test('without a step, each request is its own step; samples_per_step groups step-less plans', async (t) => {
  const { ledger, store } = fresh();
  t.teardown(() => store.close());
  const a = send(ledger, 'auto', undefined, [v(1, 1, 1)]);
  const b = send(ledger, 'auto', undefined, [v(0, 0, 0)]);
  t.same([a.ticket.step, a.ticket.status, a.finalized.length], [0, 'auto', 1]);
  t.same([b.ticket.step, b.finalized.map((r) => r.step)], [1, [1]]);

  ledger.configure('chunked', { samples_per_step: 3 });
  const steps = [1, 1, 2, 1].map((n) => send(ledger, 'chunked', undefined, Array.from({ length: n }, () => v(1, 0, 0))));
  t.same(steps.map((s) => s.ticket.step), [0, 0, 0, 1]);
  t.same(steps.map((s) => s.finalized.map((r) => [r.step, r.plans])), [[], [], [[0, 4]], []]);
  t.equal(ledger.get('chunked')!.open_step?.plans, 1);
  t.same(ledger.finalize('chunked')?.plans, 1, 'explicit finalize closes the open step');
  t.equal(ledger.finalize('chunked'), null, 'nothing left to finalize');
});

t.test('a request that fails after entering opens nothing', async (t) => {
  const { ledger, store } = fresh();
  t.teardown(() => store.close());
  ledger.enter('r', 5); // scoring threw: record never called
  t.equal(ledger.get('r')!.open_step, null);
  send(ledger, 'r', 6, [v(1, 1, 1)]);
  t.same(ledger.finalize('r')?.step, 6);
});

t.test('state survives a new process on the same directory, bit for bit', async (t) => {
  const { dir, ledger, store } = fresh();
  ledger.configure('r', { t_warm: 1, t_refresh: 2, alpha: 0.3 });
  for (let s = 0; s < 9; s++) send(ledger, 'r', s, [v(Math.sin(s) ** 2, 1 / (s + 3), 0.1 * s)]);
  const before = ledger.get('r')!;
  store.close();
  const reopened = fresh(dir);
  t.teardown(() => reopened.store.close());
  const after = reopened.ledger.get('r')!;
  t.same({ ...after, open_step: null }, { ...before, open_step: null });
  t.equal(after.weights.pers, before.weights.pers);
  t.equal(after.open_step, null, 'the unfinalized step 8 is lost, as documented');
  t.equal(after.last_finalized_step, 7);
});
