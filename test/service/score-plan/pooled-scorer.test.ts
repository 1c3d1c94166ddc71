// How /score-plan's judging uses the pool: a request of a few dozen plans goes to every idle worker, and to
// one worker while the others are busy (split-groups.ts); the parts put together are judged as one.
import t from 'tap';
import { benchBatch } from '../../../bench/realistic-plans.js';
import { DEFAULT_PLAN_LIMITS } from '../../../src/plan/parse.js';
import { pooledScorer } from '../../../src/service/score-plan/pooled-scorer.js';
import { countingPool, never, testPool } from '../../support/pool.js';

const gate = { strict: false, lambda_hard: 1, reward_profile: 'paper' as const };
const settings = { palette: undefined, limits: DEFAULT_PLAN_LIMITS, maxDepth: 64, maxPlans: 4096 };

t.test('an idle pool takes 32 plans on both workers, a busy one on one; the judgement is the same', async (t) => {
  const { pool } = await testPool();
  t.teardown(() => pool.close());
  t.equal(pool.idle(), 2, 'a resting pool of two workers has both idle');
  const { groups } = benchBatch(4, 8);
  const judge = async (idle?: () => number) => {
    const c = countingPool(pool, 'evaluateGroupsTask', idle);
    const judged = await pooledScorer({}, { groups, plans: 32 }, settings, c.pool, never()).judge(gate);
    return { parts: c.tasks(), judged };
  };
  const split = await judge();
  const whole = await judge(() => 0);
  t.equal(split.parts, 2, 'both workers idle: two parts');
  t.equal(whole.parts, 1, 'no worker idle: one part');
  // Each part writes its plans' details into a buffer of its own: compared as the text each plan points to.
  const plain = (j: typeof split.judged) =>
    j.groups.map((g) => ({ ...g, details: undefined, plans: g.plans.map((p) => ({ ...p, detail: Buffer.from(g.details.subarray(...p.detail)).toString() })) }));
  t.same(plain(split.judged), plain(whole.judged), 'the same groups, plans, rewards and details either way');
  t.ok(plain(split.judged)[0]!.plans[0]!.detail.startsWith('"components":'), 'details written');
  t.equal(split.judged.groups.length, 4);
});

t.test("a busy pool's idle count leaves out the workers that run a task", async (t) => {
  const { pool } = await testPool();
  t.teardown(() => pool.close());
  const { groups } = benchBatch(16, 8);
  const running = pool.run('evaluateGroupsTask', { groups, palette: undefined, limits: DEFAULT_PLAN_LIMITS, gate }, never());
  t.equal(pool.idle(), 1, 'one task handed: one worker idle');
  await running;
  t.equal(pool.idle(), 2, 'done: both idle again');
});
