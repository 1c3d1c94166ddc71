// Single-sample requests gathered per run (src/service/score-plan/sample-batches.ts): judged together while the
// previous gathering is judged, counted in one transaction in arrival order, retries recognised by key only:
// identical samples always count. A real ledger on both engines; the judge is a stand-in the test releases by hand.
import t from 'tap';
import type { Profile } from '../../../src/contracts/profile.js';
import { RunLedger } from '../../../src/runs/ledger.js';
import { RunTurns } from '../../../src/runs/turns.js';
import type { GateOptions } from '../../../src/scoring/evaluate-plan.js';
import { DEFAULT_SCORING, type Judged } from '../../../src/scoring/score-groups.js';
import type { Sample } from '../../../src/scoring/score-samples.js';
import { pooledSampleJudge, SampleBatches } from '../../../src/service/score-plan/sample-batches.js';
import { benchBatch } from '../../../bench/realistic-plans.js';
import { DEFAULT_PLAN_LIMITS } from '../../../src/plan/parse.js';
import { countingPool, testPool } from '../../support/pool.js';
import { ENGINES, openStore, stateSettings } from '../../support/stores.js';

const sample = (completion: string): Sample => ({ completion, profile: '' as Profile, query: null });
const judgedOf = (s: Sample): Judged => ({
  gate: { failed: false, reasons: [], penalty: 0 } as unknown as Judged['gate'],
  raw: { struct: String(s.completion).length / 100, pers: 0.5, ped: 0.5 },
  gaming_flags: [],
  aboutness: 0.5,
});

/** A judge that waits until the test releases each call, and records what each call was given. */
function heldJudge() {
  const calls: Array<{ samples: Sample[]; gate: GateOptions; release: () => void }> = [];
  const judge = (samples: Sample[], gate: GateOptions) =>
    new Promise<Judged[]>((resolve) => calls.push({ samples, gate, release: () => resolve(samples.map(judgedOf)) }));
  return { calls, judge };
}

const until = async (what: () => boolean) => {
  while (!what()) await new Promise((r) => setImmediate(r));
};

for (const engine of ENGINES) {
  t.test(engine, async (t) => {
    const store = await openStore(await stateSettings(engine));
    t.teardown(() => store.close());
    const ledger = new RunLedger(store, { lambda_hard: DEFAULT_SCORING.lambda_hard, reward_profile: DEFAULT_SCORING.reward_profile, maxRuns: 1000 });
    const deps = { ledger, turns: new RunTurns(), defaults: DEFAULT_SCORING };
    const signal = new AbortController().signal;

    t.test('requests arriving while a gathering is judged form the next one, counted in one transaction each, in order', async (t) => {
      const { calls, judge } = heldJudge();
      const batches = new SampleBatches(deps, judge, 1000);
      await ledger.configure('g', { samples_per_step: 100 });
      const first = batches.submit('g', { samples: [sample('a')], step: undefined, identity: undefined, signal });
      await until(() => calls.length === 1);
      const rest = ['b', 'c', 'd', 'e'].map((x) => batches.submit('g', { samples: [sample(x)], step: undefined, identity: undefined, signal }));
      t.equal(batches.waiting, 4, 'gathered while the first is judged');
      calls[0]!.release();
      await until(() => calls.length === 2);
      t.same(
        calls.map((c) => c.samples.length),
        [1, 4],
        'two judge calls for five requests',
      );
      calls[1]!.release();
      const answers = await Promise.all([first, ...rest]);
      t.same(
        answers.map((a) => [a.replay, a.run.step, a.run.counted]),
        Array.from({ length: 5 }, () => [false, 0, true]),
      );
      t.same((await ledger.get('g'))!.open_step, { step: 0, plans: 5, gated: 0, requests: 5, weights: answers[0]!.run.weights });
    });

    t.test('without a key identical samples always count: in flight together, one after another, answered or not', async (t) => {
      const { calls, judge } = heldJudge();
      const batches = new SampleBatches(deps, judge, 1000);
      await ledger.configure('c', { samples_per_step: 100 });
      const same = () => batches.submit('c', { samples: [sample('x')], step: undefined, identity: undefined, signal });
      const together = [same(), same(), same()];
      await until(() => calls.length === 1);
      calls[0]!.release();
      await until(() => calls.length === 2);
      calls[1]!.release();
      t.same(
        (await Promise.all(together)).map((a) => a.replay),
        [false, false, false],
        'three identical samples in flight together: three samples',
      );
      const after = same();
      await until(() => calls.length === 3);
      calls[2]!.release();
      t.equal((await after).replay, false, 'the same content once the others are answered: a fourth sample');
      t.equal((await ledger.get('c'))!.open_step!.plans, 4);
    });

    t.test('key identity: the same key is a replay, another key a new sample, a reused key with other samples a conflict', async (t) => {
      const { calls, judge } = heldJudge();
      const batches = new SampleBatches(deps, judge, 1000);
      const keyed = (key: string, text: string) =>
        batches.submit('k', { samples: [sample(text)], step: 2, identity: { key, fingerprint: `fp-${text}` }, signal });
      const run = async (p: Promise<unknown>) => {
        await until(() => calls.some((c) => !('done' in c)));
        const c = calls.find((x) => !('done' in x))!;
        Object.assign(c, { done: true });
        c.release();
        return p;
      };
      t.same(
        [(await run(keyed('k1', 'x'))) as { replay: boolean }].map((a) => a.replay),
        [false],
      );
      t.same(
        [(await run(keyed('k2', 'x'))) as { replay: boolean }].map((a) => a.replay),
        [false],
      );
      t.same(
        [(await run(keyed('k1', 'x'))) as { replay: boolean }].map((a) => a.replay),
        [true],
      );
      await t.rejects(run(keyed('k1', 'y')), { code: 'idempotency_conflict' });
      t.equal((await ledger.get('k'))!.open_step!.plans, 2);
    });

    t.test('a request given up while waiting to be gathered leaves at once and is not counted', async (t) => {
      const { calls, judge } = heldJudge();
      const batches = new SampleBatches(deps, judge, 1000);
      await ledger.configure('a', { samples_per_step: 100 });
      const first = batches.submit('a', { samples: [sample('a')], step: undefined, identity: undefined, signal });
      await until(() => calls.length === 1);
      const stop = new AbortController();
      const gone = batches.submit('a', { samples: [sample('b')], step: undefined, identity: undefined, signal: stop.signal });
      stop.abort(new Error('client left'));
      await t.rejects(gone, { message: 'client left' });
      t.equal(batches.waiting, 0);
      calls[0]!.release();
      await first;
      t.equal((await ledger.get('a'))!.open_step!.plans, 1);
    });

    t.test("a run whose λ_hard changed while its samples were judged has them judged again with the run's", async (t) => {
      const { calls, judge } = heldJudge();
      const batches = new SampleBatches(deps, judge, 1000);
      await ledger.configure('s', {});
      const answer = batches.submit('s', { samples: [sample('a')], step: 0, identity: undefined, signal });
      await until(() => calls.length === 1);
      await ledger.configure('s', { lambda_hard: 3 });
      calls[0]!.release();
      await until(() => calls.length === 2);
      t.equal(calls[1]!.gate.lambda_hard, 3);
      calls[1]!.release();
      t.equal((await answer).run.counted, true);
    });
  });
}

t.test('the pooled judge takes 32 samples on both workers of an idle pool, on one of a busy pool, judged the same', async (t) => {
  const { pool } = await testPool();
  t.teardown(() => pool.close());
  const samples = benchBatch(4, 8).groups.flatMap((g) => g.completions.map((completion): Sample => ({ completion, profile: g.profile, query: g.query })));
  const gate: GateOptions = { strict: false, lambda_hard: 1, reward_profile: 'paper' };
  const judge = async (idle?: () => number) => {
    const c = countingPool(pool, 'evaluateSamplesTask', idle);
    const judged = await pooledSampleJudge(c.pool, DEFAULT_PLAN_LIMITS)(samples, gate);
    return { judged, tasks: c.tasks() };
  };
  const split = await judge();
  const whole = await judge(() => 0);
  t.equal(split.tasks, 2, 'both workers idle: two tasks');
  t.equal(whole.tasks, 1, 'no worker idle: one task');
  t.equal(split.judged.length, 32);
  t.same(split.judged, whole.judged, 'the same judgement, in the same order');
});
