import t from 'tap';
import { cognitiveLoadTruncate, outcomeRate, passAtK, recallAtK } from '../../../src/metrics/dialogue/dict.js';

// pass@k by its definition, with exact binomials, for small n.
const binom = (n: number, k: number): number => (k < 0 || k > n ? 0 : k === 0 ? 1 : (binom(n - 1, k - 1) * n) / k);

t.test('pass@k: the unbiased estimator equals 1 − C(n−c,k)/C(n,k)', async (t) => {
  for (const [n, c, k] of [
    [10, 3, 1],
    [10, 3, 5],
    [20, 0, 5],
    [20, 20, 1],
    [5, 1, 5],
    [15, 7, 3],
  ] as const) {
    t.ok(Math.abs(passAtK(n, c, k) - (1 - binom(n - c, k) / binom(n, k))) < 1e-12, `n=${n} c=${c} k=${k}`);
  }
  t.ok(Math.abs(passAtK(10, 3, 1) - 0.3) < 1e-12, 'k = 1 is the pass rate');
  t.ok(passAtK(1000, 10, 100) > 0 && passAtK(1000, 10, 100) < 1, 'large n does not overflow');
  t.throws(() => passAtK(5, 6, 1), RangeError);
  t.throws(() => passAtK(5, 1, 6), RangeError);
});

t.test('Recall@k over dependency sets; Δ%; f_CL', async (t) => {
  t.equal(recallAtK(['a', 'x', 'b', 'c'], ['a', 'b', 'c'], 3), 2 / 3);
  t.equal(recallAtK(['a', 'a'], ['a'], 1), 1);
  t.equal(recallAtK(['a'], [], 1), null);
  t.ok(Math.abs(outcomeRate(0.4, 0.5)! - 0.25) < 1e-12);
  t.equal(outcomeRate(0, 0.5), null);
  const long = Array.from({ length: 70 }, (_, i) => `w${i}`).join(' ');
  t.equal(cognitiveLoadTruncate(long), Array.from({ length: 60 }, (_, i) => `w${i + 10}`).join(' '), 'the last 60 words');
  t.equal(cognitiveLoadTruncate('  short   text '), 'short text');
});
