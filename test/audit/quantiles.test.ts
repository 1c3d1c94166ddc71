import t from 'tap';
import { mulberry32 } from '../../src/common/rng.js';
import { QuantileSketch } from '../../src/audit/quantiles.js';

const sketchOf = (xs: number[], maxExact?: number) => {
  const s = new QuantileSketch(maxExact);
  for (const x of xs) s.add(x);
  return s;
};

t.test('exact mode: linear interpolation between order statistics (numpy default)', async (t) => {
  const s = sketchOf([3, 1, 4, 1, 5, 9, 2, 6]);
  // numpy.percentile([3,1,4,1,5,9,2,6], [10, 50, 90]) → 1.0, 3.5, 6.9
  t.equal(s.quantile(0.1), 1);
  t.equal(s.quantile(0.5), 3.5);
  t.ok(Math.abs(s.quantile(0.9)! - 6.9) < 1e-12);
  t.same(s.summary(), { n: 8, mean: 31 / 8, min: 1, max: 9, p10: 1, median: 3.5, p90: s.quantile(0.9), exact: true });
});

t.test('empty and single-value sketches', async (t) => {
  t.same(new QuantileSketch().summary(), { n: 0, mean: null, min: null, max: null, p10: null, median: null, p90: null, exact: true });
  t.equal(sketchOf([7]).quantile(0.9), 7);
});

t.test('non-finite values are ignored', async (t) => {
  t.equal(sketchOf([1, NaN, Infinity, 3]).summary().n, 2);
});

t.test('past maxExact distinct values it folds into the sketch, within the relative error', async (t) => {
  const rand = mulberry32(3);
  const xs = Array.from({ length: 50_000 }, () => (rand() < 0.1 ? 0 : rand() ** 3 * 500));
  const s = sketchOf(xs, 256);
  const sorted = [...xs].sort((a, b) => a - b);
  const summary = s.summary();
  t.equal(summary.exact, false);
  t.equal(summary.n, xs.length);
  for (const q of [0.05, 0.1, 0.5, 0.9, 0.99]) {
    const truth = sorted[Math.round(q * (xs.length - 1))]!;
    const got = s.quantile(q)!;
    t.ok(Math.abs(got - truth) <= s.relativeError * truth + 1e-12, `q=${q}: ${got} vs ${truth}`);
  }
  t.equal(s.quantile(0), 0, 'zeros are kept exactly');
  t.equal(summary.max, sorted.at(-1), 'min and max stay exact');
});

t.test('negative values in sketch mode keep their order', async (t) => {
  const xs = Array.from({ length: 1000 }, (_, i) => i - 500);
  const s = sketchOf(xs, 10);
  t.ok(Math.abs(s.quantile(0.1)! - -400) <= 0.005 * 400 + 1);
  t.ok(Math.abs(s.quantile(0.9)! - 399) <= 0.005 * 400 + 1);
});
