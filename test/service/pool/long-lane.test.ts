// Long tasks (the evaluation routes', fitting a log) may not take the whole pool: at most all workers but
// one run them, the rest wait in their lane, and every other task finds a worker meanwhile. The long tasks
// are held in their workers (hold.ts) for as long as each test needs: nothing here depends on timing.
import t, { type Test } from 'tap';
import { EXAMPLE_PLAN, EXAMPLE_SCORE_REQUEST } from '../../../src/contracts/examples.js';
import { DEFAULT_PLAN_LIMITS } from '../../../src/plan/parse.js';
import { DEFAULT_SCORING } from '../../../src/scoring/score-groups.js';
import { holdTasks, taskHold, tasksHeld } from '../../../src/service/pool/hold.js';
import { longLane, type WorkPool } from '../../../src/service/pool/pool.js';
import { until } from '../../support/app.js';
import { never, testPool } from '../../support/pool.js';

/** /evaluate-plan's task, the one the issue saw hold both workers. */
const evaluatePlans = (pool: WorkPool, signal = never()) =>
  pool.run('evaluatePlansTask', { body: { plans: [{ plan: EXAMPLE_PLAN }], gold: EXAMPLE_PLAN }, limits: DEFAULT_PLAN_LIMITS }, signal);
/** /score-plan's task: not long. */
const scorePlans = (pool: WorkPool) =>
  pool.run(
    'evaluateGroupsTask',
    { groups: EXAMPLE_SCORE_REQUEST.groups, palette: undefined, limits: DEFAULT_PLAN_LIMITS, gate: { ...DEFAULT_SCORING, strict: false } },
    never(),
  );

/** A pool of two workers whose long tasks wait in their workers until released. */
async function heldPool(t: Test, maxQueue?: number) {
  const hold = taskHold();
  const { pool } = await testPool(maxQueue === undefined ? { hold } : { hold, maxQueue });
  holdTasks(hold, true);
  t.teardown(async () => {
    holdTasks(hold, false);
    await pool.close();
  });
  return { pool, hold, release: () => holdTasks(hold, false) };
}

t.test('the long lane: all workers but one, and one with one', async (t) => {
  t.same([1, 2, 3, 4, 16].map(longLane), [1, 1, 2, 3, 15]);
});

t.test('long tasks hold at most all workers but one; a task that is not long runs while they are held', async (t) => {
  const { pool, hold, release } = await heldPool(t);
  const done: number[] = [];
  const long = [0, 1, 2].map(async (i) => {
    const r = await evaluatePlans(pool);
    done.push(i);
    return r;
  });
  await until('a long task held in its worker', async () => tasksHeld(hold) === 1);
  t.match(pool.status(), { workers: 2, running: 1, queued: 2, saturated: false }, 'one long task runs, two wait in their lane');

  const [a, b] = await Promise.all([scorePlans(pool), scorePlans(pool)]);
  t.equal(a.groups[0]!.plans.length, EXAMPLE_SCORE_REQUEST.groups[0]!.completions.length, 'scored');
  t.same(b.groups, a.groups);
  t.equal(tasksHeld(hold), 1, 'while the long task was still held');
  t.same(done, [], 'and no long task had ended');

  release();
  const reports = await Promise.all(long);
  t.same(done, [0, 1, 2], 'the lane ran them one at a time, in arrival order');
  t.ok(reports.every((r) => r.report.plans[0]!.structural_similarity!.exact));
  t.match(pool.status(), { running: 0, queued: 0 });
});

t.test('a long task abandoned while it waits for its lane leaves it at once', async (t) => {
  const { pool, hold, release } = await heldPool(t);
  const first = evaluatePlans(pool);
  await until('the first long task held', async () => tasksHeld(hold) === 1);
  const leaving = new AbortController();
  const second = evaluatePlans(pool, leaving.signal);
  t.match(pool.status(), { running: 1, queued: 1 });
  leaving.abort(new Error('client gone'));
  await t.rejects(second, { message: 'client gone' });
  t.match(pool.status(), { running: 1, queued: 0 }, 'no longer waiting');
  release();
  t.ok((await first).report.plans.length === 1);
});

t.test('a full lane refuses long tasks at once, and never a task that is not long', async (t) => {
  const { pool, hold, release } = await heldPool(t, 1);
  const running = evaluatePlans(pool);
  await until('a long task held', async () => tasksHeld(hold) === 1);
  const waiting = evaluatePlans(pool);
  await t.rejects(evaluatePlans(pool), { code: 'overloaded', message: /long tasks run.*MAX_QUEUE/ }, 'a third long task: MAX_QUEUE of 1 waits already');
  t.match(pool.status(), { running: 1, queued: 1, saturated: false }, 'not saturated: the other worker is free');
  t.equal((await scorePlans(pool)).groups.length, 1, 'the other worker serves');
  release();
  await Promise.all([running, waiting]);
});

t.test('closing drops the long tasks still waiting for their lane', async (t) => {
  const hold = taskHold();
  const { pool } = await testPool({ hold });
  holdTasks(hold, true);
  const held = evaluatePlans(pool).catch((e: { code?: string }) => e.code);
  await until('a long task held', async () => tasksHeld(hold) === 1);
  const waiting = evaluatePlans(pool).catch((e: { code?: string }) => e.code);
  // The close cancels the held task, which then never starts, and refuses the one in the lane.
  await pool.close();
  t.equal(await waiting, 'overloaded');
  t.equal(await held, 'client_closed');
  t.equal(tasksHeld(hold), 0);
});

t.test('a round (pool.each) runs once in every worker, even when one worker is busy as it begins', async (t) => {
  const { pool, hold, release } = await heldPool(t);
  const long = evaluatePlans(pool);
  await until('a long task held in its worker', async () => tasksHeld(hold) === 1);
  // The free worker takes the round's first task and must not also take its second, which waits instead
  // for the worker the long task holds.
  const round = pool.each('collectTask', null);
  const other = pool.each('collectTask', null);
  await until('the round waiting for the busy worker', async () => pool.status().queued === 1);
  t.equal(pool.status().running, 2, 'the long task and the first task of the round run; the second waits');
  release();
  await long;
  for (const [i, threads] of [await round, await other].map((r) => r.map((x) => x.thread)).entries()) {
    t.equal(new Set(threads).size, 2, `round ${i + 1} ran in both workers (threads ${threads.join(', ')})`);
  }
});
