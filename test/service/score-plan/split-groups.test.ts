import t from 'tap';
import { benchBatch } from '../../../bench/realistic-plans.js';
import type { ScorePlanRequest } from '../../../src/contracts/score-plan.js';
import { MIN_PLANS_PER_IDLE_PART, PART_MAX_CHARS, splitGroups } from '../../../src/service/score-plan/split-groups.js';

const chars = (groups: ScorePlanRequest['groups']) => groups.reduce((n, g) => n + g.completions.reduce<number>((m, c) => m + (c as string).length, 0), 0);
const plans = (groups: ScorePlanRequest['groups']) => groups.reduce((n, g) => n + g.completions.length, 0);

t.test('a large request goes in parts of at most PART_MAX_CHARS of completion text, every group once and in order', async (t) => {
  const { groups } = benchBatch(64, 8);
  t.ok(chars(groups) > 2_000_000, 'the 64×8 batch carries megabytes of completions');
  const parts = splitGroups(groups, 2);
  t.same(parts.flat(), groups, 'the parts put together are the request');
  t.ok(parts.length > 2, `more parts than workers (${parts.length})`);
  for (const [i, part] of parts.entries()) t.ok(chars(part) <= PART_MAX_CHARS, `part ${i}: ${chars(part)} characters`);
});

t.test('a request too small to split stays whole; one of two workers-worth is split in two', async (t) => {
  const small = benchBatch(8, 8).groups;
  t.equal(splitGroups(small, 2).length, 1, '64 plans: one part, however much text');
  // 128 short completions: worth both workers, each part far under the text bound.
  const short = benchBatch(16, 8).groups.map((g) => ({ ...g, completions: g.completions.map(() => '{}') }));
  t.same(
    splitGroups(short, 2).map((p) => p.length),
    [8, 8],
  );
  t.equal(splitGroups(benchBatch(64, 8).groups, 1).length, 1, 'one worker: one part');
  // Completions sent as objects have no text size: one part per worker by plan count.
  const objects = benchBatch(16, 8).groups.map((g) => ({ ...g, completions: g.completions.map(() => ({ steps: [] })) }));
  t.same(splitGroups(objects, 2).map(plans), [64, 64]);
});

t.test('a group is never cut, even one over the text bound', async (t) => {
  const huge = benchBatch(2, 8).groups.map((g) => ({
    ...g,
    completions: Array.from({ length: 160 }, (_, k) => g.completions[k % g.completions.length]!),
  }));
  t.ok(chars(huge.slice(0, 1)) > PART_MAX_CHARS, 'each group alone is over the bound');
  t.same(splitGroups(huge, 2), [[huge[0]], [huge[1]]]);
});

t.test('idle workers take a request of a few dozen plans in parts of at least MIN_PLANS_PER_IDLE_PART plans', async (t) => {
  t.equal(MIN_PLANS_PER_IDLE_PART, 16);
  const g4 = benchBatch(4, 8).groups;
  t.same(splitGroups(g4, 2, 2), [g4.slice(0, 2), g4.slice(2)], '32 plans, two idle workers: two parts of 16');
  t.equal(splitGroups(g4, 2, 1).length, 1, 'one idle worker: one part');
  t.equal(splitGroups(g4, 2).length, 1, 'none idle: one part');
  t.equal(splitGroups(benchBatch(2, 8).groups, 2, 2).length, 1, '16 plans: one part, idle workers or not');
  const g8 = benchBatch(8, 8).groups;
  t.same(splitGroups(g8, 2, 2).map(plans), [32, 32], '64 plans, two idle workers: one part each');
  t.same(splitGroups(g8, 2, 4).map(plans), [32, 32], 'never more parts than workers');
  t.same(splitGroups(g8, 4, 4).map(plans), [16, 16, 16, 16], 'four idle workers: four parts of 16');
  const one = [{ ...g8[0]!, completions: g8.flatMap((g) => g.completions) }];
  t.same(splitGroups(one, 2, 2), [one], 'one group of 64 plans: never cut');
});
