import t from 'tap';
import { isRefreshStep, refreshWeights, updateEma } from '../../src/grpo/adaptive-weights.js';
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

t.test('weights move toward the lagging axis; clip then normalize (hand-computed)', async (t) => {
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

t.test('clipping bounds a weight before normalization', async (t) => {
  const out = refreshWeights({ struct: 0.9, pers: 0.05, ped: 0.05 }, { struct: 0, pers: 1, ped: 1 }, { ...c, eta_w: 5 });
  // struct: 0.9·e^{2} clips to 0.7; pers, ped: 0.05·e^{-3} clip to 0.05 → 0.7/0.8, 0.05/0.8, 0.05/0.8
  t.equal(out.struct, 0.7 / 0.8);
  t.equal(out.pers, 0.05 / 0.8);
  t.equal(out.ped, 0.05 / 0.8);
});
