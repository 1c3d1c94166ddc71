import fc from 'fast-check';
import t from 'tap';
import { lengthBatches } from '../../src/text/length-batches.js';

const costOf = (lengths: readonly number[], runs: readonly (readonly number[])[], runCost: number) =>
  runs.reduce((sum, run) => sum + runCost + run.length * Math.max(1, ...run.map((i) => lengths[i]!)), 0);

/** Every way to cut items 0..n-1 into groups (not only runs of neighbours), for the reference minimum. */
function* partitions(n: number): Generator<number[][]> {
  if (n === 0) {
    yield [];
    return;
  }
  for (const rest of partitions(n - 1)) {
    for (let g = 0; g < rest.length; g++) yield rest.map((group, k) => (k === g ? [...group, n - 1] : group));
    yield [...rest, [n - 1]];
  }
}

t.test('the cheapest cut of all, by brute force over every grouping of up to 7 texts', (t) => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 7 }),
      fc.integer({ min: 1, max: 8 }),
      fc.integer({ min: 0, max: 40 }),
      (raw, maxRun, runCost) => {
        const lengths = [...raw].sort((a, b) => a - b);
        const runs = lengthBatches(lengths, maxRun, runCost);
        // In order, covering every text once, none longer than maxRun.
        t.same(
          runs.flatMap(([s, e]) => Array.from({ length: e - s }, (_, k) => s + k)),
          lengths.map((_, i) => i),
        );
        t.ok(runs.every(([s, e]) => e > s && e - s <= maxRun));
        let least = Number.POSITIVE_INFINITY;
        for (const p of partitions(lengths.length)) if (p.every((g) => g.length <= maxRun)) least = Math.min(least, costOf(lengths, p, runCost));
        const got = costOf(
          lengths,
          runs.map(([s, e]) => Array.from({ length: e - s }, (_, k) => s + k)),
          runCost,
        );
        t.equal(got, lengths.length ? least : 0, `lengths ${lengths}, maxRun ${maxRun}, runCost ${runCost}`);
      },
    ),
    { numRuns: 300 },
  );
  t.end();
});

t.test('a /verify-turn request: twenty short candidates are not padded to the task and the context', (t) => {
  const lengths = [...Array(20).fill(18), 40, 150];
  t.same(lengthBatches(lengths, 32, 8), [
    [0, 20],
    [20, 21],
    [21, 22],
  ]);
  t.same(lengthBatches(Array(70).fill(10), 32, 8).length, 3, 'runs of at most 32');
  t.same(lengthBatches([], 32, 8), []);
  t.end();
});
