import fc from 'fast-check';
import t from 'tap';
import { jaccard, jaccardAtLeast } from '../../src/common/jaccard.js';

t.test('jaccard: shared over union, two empty sets alike', async (t) => {
  t.equal(jaccard(new Set(['a', 'b', 'c']), new Set(['b', 'c', 'd'])), 0.5);
  t.equal(jaccard(new Set(), new Set()), 1);
  t.equal(jaccard(new Set(['a']), new Set()), 0);
});

t.test('jaccardAtLeast answers jaccard(a, b) >= t, also at thresholds the ratio meets exactly', async (t) => {
  const set = fc.uniqueArray(fc.integer({ min: 0, max: 12 }), { maxLength: 10 }).map((xs) => new Set(xs));
  fc.assert(
    fc.property(set, set, fc.integer({ min: 0, max: 20 }), fc.integer({ min: 1, max: 20 }), (a, b, num, den) => {
      const exact = jaccard(a, b);
      // The ratio itself, a near miss on both sides, and an arbitrary fraction.
      for (const th of [exact, exact + 1e-12, exact - 1e-12, num / den, 0.8]) {
        if (jaccardAtLeast(a, b, th) !== exact >= th) return false;
        if (jaccardAtLeast(b, a, th) !== exact >= th) return false;
      }
      return true;
    }),
    { numRuns: 2000, seed: 51 },
  );
  t.equal(jaccardAtLeast(new Set(), new Set(), 1), true, 'two empty sets are identical');
  t.equal(jaccardAtLeast(new Set([1, 2, 3, 4, 5]), new Set([1, 2, 3, 4, 6]), 0.8), false, '4 of 6 is under 0.8');
  t.equal(jaccardAtLeast(new Set([1, 2, 3, 4, 5]), new Set([1, 2, 3, 4, 5, 6]), 0.8), true, '5 of 6 reaches 0.8');
});
