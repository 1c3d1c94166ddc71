import fc from 'fast-check';
import t from 'tap';
import { isRefreshStep, projectCappedSimplex, refreshWeights, updateEma } from '../../src/grpo/adaptive-weights.js';
import { SOFT_AXES } from '../../src/grpo/compose.js';
import { projectByEnumeration } from '../support/capped-simplex.js';
import { DEFAULT_RUN_CONFIG } from '../../src/contracts/runs.js';

const c = DEFAULT_RUN_CONFIG;

t.test('EMA starts at the first step mean, then moves by α', async (t) => {
  const first = updateEma(null, { struct: 0.9, pers: 0.2, ped: 0.5 }, 0.1);
  t.same(first, { struct: 0.9, pers: 0.2, ped: 0.5 });
  const second = updateEma(first, { struct: 0.5, pers: 1, ped: 0.5 }, 0.1);
  t.equal(second.struct, 0.9 * 0.9 + 0.1 * 0.5);
  t.equal(second.pers, 0.9 * 0.2 + 0.1 * 1);
  t.equal(second.ped, 0.9 * 0.5 + 0.1 * 0.5);
});

t.test('refresh schedule: s ≥ T_warm and (s − T_warm) mod T_refresh = 0', async (t) => {
  const refreshing = Array.from({ length: 400 }, (_, s) => s).filter((s) => isRefreshStep(s, c));
  t.same(refreshing, [50, 150, 250, 350]);
  t.same(
    [0, 1, 2, 3, 4].filter((s) => isRefreshStep(s, { t_warm: 0, t_refresh: 2 })),
    [0, 2, 4],
  );
});

t.test('weights move toward the lagging axis; no bound binds: plain normalization, bit for bit (hand-computed)', async (t) => {
  const w = { struct: 1 / 3, pers: 1 / 3, ped: 1 / 3 };
  const ema = { struct: 0.95, pers: 0.1, ped: 0.7 };
  const raw = {
    struct: (1 / 3) * Math.exp(0.3 * (0.4 - 0.95)),
    pers: (1 / 3) * Math.exp(0.3 * (0.4 - 0.1)),
    ped: (1 / 3) * Math.exp(0.3 * (0.4 - 0.7)),
  };
  const sum = raw.struct + raw.pers + raw.ped;
  const out = refreshWeights(w, ema, c);
  t.equal(out.struct, raw.struct / sum);
  t.equal(out.pers, raw.pers / sum);
  t.equal(out.ped, raw.ped / sum);
  t.ok(out.pers > w.pers && out.struct < w.struct);
  t.ok(Math.abs(out.struct + out.pers + out.ped - 1) < 1e-15);
});

t.test('a weight pushed past w_max stays at w_max; the rest is shared out by the projection (hand-computed)', async (t) => {
  // u / Σu ≈ (0.99966, 0.00017, 0.00017). Clip-then-normalize gave (0.875, 0.0625, 0.0625), past w_max = 0.7;
  // the nearest point with the weights in [0.05, 0.7] summing to 1 is (0.7, 0.15, 0.15).
  const out = refreshWeights({ struct: 0.9, pers: 0.05, ped: 0.05 }, { struct: 0, pers: 1, ped: 1 }, { ...c, eta_w: 5 });
  t.equal(out.struct, 0.7);
  t.ok(Math.abs(out.pers - 0.15) < 1e-15, `pers ${out.pers}`);
  t.ok(Math.abs(out.ped - 0.15) < 1e-15, `ped ${out.ped}`);
  // A weight pushed under w_min stays at w_min.
  const low = refreshWeights({ struct: 0.06, pers: 0.47, ped: 0.47 }, { struct: 1, pers: 0, ped: 0 }, { ...c, eta_w: 5 });
  t.equal(low.struct, 0.05);
  t.ok(Math.abs(low.pers - 0.475) < 1e-15 && Math.abs(low.ped - 0.475) < 1e-15, JSON.stringify(low));
});

// Bounds with a non-empty set for n weights: n·lo ≤ 1 ≤ n·hi, lo ≤ hi.
const bounded = (n: number) =>
  fc
    .record({ a: fc.double({ min: 0, max: 1, noNaN: true }), b: fc.double({ min: 0, max: 1, noNaN: true }) })
    .map(({ a, b }) => ({ lo: a / n, hi: 1 / n + b * (1 - 1 / n) }));
const feasible = (w: number[], lo: number, hi: number) => Math.abs(w.reduce((a, b) => a + b, 0) - 1) < 1e-12 && w.every((x) => x >= lo && x <= hi);
const distance = (w: number[], v: readonly number[]) => w.reduce((s, x, i) => s + (x - v[i]!) ** 2, 0);
const anyVector = (n: number) => fc.array(fc.double({ min: -2, max: 3, noNaN: true }), { minLength: n, maxLength: n });

t.test('the projection is the brute-force quadratic program’s answer (random inputs, n = 2…6)', async (t) => {
  fc.assert(
    fc.property(
      fc.integer({ min: 2, max: 6 }).chain((n) => fc.tuple(anyVector(n), bounded(n))),
      ([v, { lo, hi }]) => {
        const got = projectCappedSimplex(v, lo, hi);
        const want = projectByEnumeration(v, lo, hi);
        // Feasible, and as near to v as the reference (the squared distance is strongly convex, so this also
        // puts it within about √(rounding) of the reference even where near-ties make the reference's pick arbitrary).
        return feasible(got, lo, hi) && distance(got, v) <= distance(want, v) + 1e-12 && got.every((x, i) => Math.abs(x - want[i]!) < 1e-7);
      },
    ),
    { numRuns: 2000 },
  );
  t.pass('property held');
});

t.test('projection properties: sums to 1, within the bounds, idempotent on the set', async (t) => {
  fc.assert(
    fc.property(
      fc.integer({ min: 2, max: 6 }).chain((n) => fc.tuple(anyVector(n), bounded(n))),
      ([v, { lo, hi }]) => {
        const w = projectCappedSimplex(v, lo, hi);
        const again = projectCappedSimplex(w, lo, hi);
        return feasible(w, lo, hi) && again.every((x, i) => Math.abs(x - w[i]!) < 1e-15);
      },
    ),
    { numRuns: 2000 },
  );
  t.pass('property held');
  // Sets of one point (n·hi = 1, n·lo = 1, and n·lo one ulp over 1, which bounds from a stored run can be).
  for (const [v, lo, hi] of [
    [[0.9, 0.3, -0.2], 0.2, 1 / 3],
    [[0.9, 0.3, -0.2], 1 / 3, 0.9],
    [[0.9, 0.3, -0.2, 0.1], 0.25000000000000006, 0.9],
  ] as const) {
    const w = projectCappedSimplex(v, lo, hi);
    t.ok(
      w.every((x) => Math.abs(x - 1 / v.length) < 1e-15),
      `lo ${lo}, hi ${hi}: the one point of the set, ${JSON.stringify(w)}`,
    );
  }
});

const positive = fc.double({ min: 1e-3, max: 1, noNaN: true });
const unit = fc.double({ min: 0, max: 1, noNaN: true });

t.test('refreshWeights: within [w_min, w_max], summing to 1, the projection of u / Σu; u / Σu itself when it is inside', async (t) => {
  fc.assert(
    fc.property(
      fc.record({ struct: positive, pers: positive, ped: positive }),
      fc.record({ struct: unit, pers: unit, ped: unit }),
      bounded(3),
      fc.double({ min: 0, max: 100, noNaN: true }),
      unit,
      (w0, ema, { lo, hi }, eta_w, rho) => {
        const config = { ...c, w_min: lo, w_max: hi, eta_w, rho };
        const out = refreshWeights(w0, ema, config);
        const values = SOFT_AXES.map((k) => out[k]);
        const u = SOFT_AXES.map((k) => w0[k] * Math.exp(eta_w * (rho - ema[k])));
        const normalized = u.map((x) => x / u.reduce((a, b) => a + b, 0));
        const want = projectByEnumeration(normalized, lo, hi);
        const inside = normalized.every((x) => x >= lo && x <= hi);
        return (
          feasible(values, lo, hi) &&
          distance(values, normalized) <= distance(want, normalized) + 1e-12 &&
          (!inside || values.every((x, i) => x === normalized[i]))
        );
      },
    ),
    { numRuns: 2000 },
  );
  t.pass('property held');
});

t.test('a run stored before the bounds were checked: an empty set widens to 1/3', async (t) => {
  const w = { struct: 0.6, pers: 0.2, ped: 0.2 };
  const ema = { struct: 0.9, pers: 0.1, ped: 0.4 };
  t.same(refreshWeights(w, ema, { ...c, w_min: 0.4, w_max: 0.9 }), { struct: 1 / 3, pers: 1 / 3, ped: 1 / 3 }, '3·w_min > 1');
  t.same(refreshWeights(w, ema, { ...c, w_min: 0.1, w_max: 0.3 }), { struct: 1 / 3, pers: 1 / 3, ped: 1 / 3 }, '3·w_max < 1');
});
