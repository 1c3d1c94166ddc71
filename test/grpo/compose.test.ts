import t from 'tap';
import { absoluteScore, composeGroup, INITIAL_WEIGHTS } from '../../src/grpo/compose.js';
import { mean, std } from '../../src/grpo/stats.js';

const opts = { epsilon: 1e-6, tau: 1e-6, ddof: 0 as const };

t.test('mean and std with ddof 0 and 1 (numpy reference values)', async (t) => {
  // numpy.std([1, 2, 3, 4]) = 1.118033988749895; ddof=1 → 1.2909944487358056
  t.equal(mean([1, 2, 3, 4]), 2.5);
  t.ok(Math.abs(std([1, 2, 3, 4], 0) - 1.118033988749895) < 1e-15);
  t.ok(Math.abs(std([1, 2, 3, 4], 1) - 1.2909944487358056) < 1e-15);
  t.equal(std([5], 1), 0);
  t.equal(std([], 0), 0);
});

t.test('hand-computed group of three', async (t) => {
  // struct: [1, 0.5, 0] → μ 0.5, σ √(1/6) = 0.408248…; pers all 0.5 → σ 0 < τ → z 0; ped: [1, 1, 0.25]
  const members = [
    { raw: { struct: 1, pers: 0.5, ped: 1 }, hard: 0 },
    { raw: { struct: 0.5, pers: 0.5, ped: 1 }, hard: 0 },
    { raw: { struct: 0, pers: 0.5, ped: 0.25 }, hard: -10 },
  ];
  const g = composeGroup(members, INITIAL_WEIGHTS, opts);
  const sStruct = Math.sqrt(1 / 6);
  const mPed = 2.25 / 3;
  const sPed = Math.sqrt(((1 - mPed) ** 2 * 2 + (0.25 - mPed) ** 2) / 3);
  const z = [
    { struct: 0.5 / (sStruct + 1e-6), pers: 0, ped: (1 - mPed) / (sPed + 1e-6) },
    { struct: 0, pers: 0, ped: (1 - mPed) / (sPed + 1e-6) },
    { struct: -0.5 / (sStruct + 1e-6), pers: 0, ped: (0.25 - mPed) / (sPed + 1e-6) },
  ];
  const R = z.map((zi, i) => (zi.struct + zi.pers + zi.ped) / 3 + members[i]!.hard);
  const mR = (R[0]! + R[1]! + R[2]!) / 3;
  const sR = Math.sqrt(R.reduce((s, r) => s + (r - mR) ** 2, 0) / 3);
  for (let i = 0; i < 3; i++) {
    for (const k of ['struct', 'pers', 'ped'] as const) t.ok(Math.abs(g.members[i]!.z[k] - z[i]![k]) < 1e-12, `z[${i}].${k}`);
    t.ok(Math.abs(g.members[i]!.reward - R[i]!) < 1e-12, `R[${i}]`);
    t.ok(Math.abs(g.members[i]!.advantage - (R[i]! - mR) / (sR + 1e-6)) < 1e-12, `A[${i}]`);
  }
  t.equal(g.axis_std.pers, 0);
  t.ok(g.members[2]!.reward < g.members[1]!.reward);
});

t.test('ddof 1 changes σ; a flat group has zero advantages', async (t) => {
  const members = [0, 1].map((x) => ({ raw: { struct: x, pers: 0, ped: 0 }, hard: 0 }));
  t.ok(Math.abs(composeGroup(members, INITIAL_WEIGHTS, { ...opts, ddof: 1 }).members[1]!.z.struct - 0.5 / (Math.SQRT1_2 + 1e-6)) < 1e-12);
  t.ok(Math.abs(composeGroup(members, INITIAL_WEIGHTS, opts).members[1]!.z.struct - 0.5 / (0.5 + 1e-6)) < 1e-12);
  const flat = composeGroup(
    [1, 2, 3].map(() => ({ raw: { struct: 0.7, pers: 0.2, ped: 1 }, hard: 0 })),
    INITIAL_WEIGHTS,
    opts,
  );
  t.same(
    flat.members.map((m) => m.advantage),
    [0, 0, 0],
  );
});

t.test('τ silences an axis whose spread is below it', async (t) => {
  const members = [0.5, 0.5001].map((x) => ({ raw: { struct: x, pers: 0, ped: 0 }, hard: 0 }));
  t.not(composeGroup(members, INITIAL_WEIGHTS, opts).members[0]!.z.struct, 0);
  t.equal(composeGroup(members, INITIAL_WEIGHTS, { ...opts, tau: 0.01 }).members[0]!.z.struct, 0);
});

t.test('absolute score', async (t) => {
  t.equal(absoluteScore({ struct: 1, pers: 0.5, ped: 0.75 }, false, INITIAL_WEIGHTS), 0.75);
  t.equal(absoluteScore({ struct: 1, pers: 1, ped: 1 }, true, INITIAL_WEIGHTS), 0);
});
