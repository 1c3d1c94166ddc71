import { DEFAULT_PLAN_LIMITS } from '../../src/plan/parse.js';
import fc from 'fast-check';
import t from 'tap';
import type { Profile } from '../../src/contracts/profile.js';
import { composeGroup, INITIAL_WEIGHTS, SOFT_AXES } from '../../src/grpo/compose.js';
import { DEFAULT_SCORING, scoreGroups } from '../../src/scoring/score-groups.js';
import { completionText } from '../support/arbitraries.js';

const unit = fc.double({ min: 0, max: 1, noNaN: true });
const member = fc.record({ raw: fc.record({ struct: unit, pers: unit, ped: unit }), gated: fc.boolean() });
const options = fc.record({ epsilon: fc.constantFrom(1e-8, 1e-6, 1e-4), tau: fc.constantFrom(0, 1e-6, 1e-3), ddof: fc.constantFrom<0 | 1>(0, 1) });

t.test('z-scores of every axis sum to 0 within a group', async (t) => {
  fc.assert(
    fc.property(fc.array(member, { minLength: 1, maxLength: 64 }), options, (group, o) => {
      const g = composeGroup(
        group.map((m) => ({ raw: m.raw, hard: 0 })),
        INITIAL_WEIGHTS,
        o,
      );
      for (const k of SOFT_AXES) {
        const sum = g.members.reduce((s, m) => s + m.z[k], 0);
        // The mean itself is rounded: Σ(R − μ) is off by up to n ulps of the values, and dividing by σ + ε
        // (as small as ε when the values are all but equal) magnifies that by 1/ε.
        if (Math.abs(sum) > group.length * (1e-9 + (4 * Number.EPSILON) / o.epsilon)) return false;
      }
      return true;
    }),
  );
  t.pass('property held');
});

t.test('a gated plan never outranks a valid one in its group (groups up to 16, λ_hard = 10)', async (t) => {
  fc.assert(
    fc.property(fc.array(member, { minLength: 2, maxLength: 16 }), options, (group, o) => {
      const g = composeGroup(
        group.map((m) => ({ raw: m.raw, hard: m.gated ? -10 : 0 })),
        INITIAL_WEIGHTS,
        o,
      );
      const valid = g.members.filter((_, i) => !group[i]!.gated).map((m) => m.reward);
      const gated = g.members.filter((_, i) => group[i]!.gated).map((m) => m.reward);
      return valid.length === 0 || gated.length === 0 || Math.max(...gated) < Math.min(...valid);
    }),
    { numRuns: 500 },
  );
  t.pass('property held');
});

const limits = DEFAULT_PLAN_LIMITS;
const group = fc.record({
  id: fc.uuid(),
  query: fc.constant('How do I group by month?'),
  profile: fc.constantFrom<Profile>({ tags: ['python', 'pandas'] }, 'Java developer learning Docker', { skills: 'SQL, Excel' }),
  completions: fc.array(completionText, { minLength: 1, maxLength: 6 }),
});

t.test('scoring is deterministic and independent of the order of groups', async (t) => {
  fc.assert(
    fc.property(fc.array(group, { minLength: 1, maxLength: 5 }), fc.nat(), (groups, seed) => {
      const a = scoreGroups({ groups: structuredClone(groups) }, limits, DEFAULT_SCORING).response;
      const again = scoreGroups({ groups: structuredClone(groups) }, limits, DEFAULT_SCORING).response;
      const shuffled = [...groups].sort((x, y) => (x.id + seed).localeCompare(y.id + seed));
      const b = scoreGroups({ groups: structuredClone(shuffled) }, limits, DEFAULT_SCORING).response;
      const byId = (r: typeof a) => Object.fromEntries(r.groups.map(({ index: _index, ...rest }) => [rest.id, rest]));
      t.same(again, a);
      t.same(byId(b), byId(a));
      return true;
    }),
    { numRuns: 40 },
  );
});

t.test('end to end: gated completions rank below valid ones in real groups', async (t) => {
  fc.assert(
    fc.property(fc.array(group, { minLength: 1, maxLength: 3 }), (groups) => {
      const r = scoreGroups({ groups: groups.map((g) => ({ ...g, completions: g.completions.slice(0, 16) })) }, limits, DEFAULT_SCORING).response;
      for (const g of r.groups) {
        const valid = g.plans.filter((p) => !p.gate.failed).map((p) => p.reward);
        const gated = g.plans.filter((p) => p.gate.failed).map((p) => p.reward);
        if (valid.length && gated.length && Math.max(...gated) >= Math.min(...valid)) return false;
        if (g.plans.some((p) => p.gate.failed !== (p.score === 0 && p.gate.penalty === -10))) return false;
      }
      return true;
    }),
    { numRuns: 60 },
  );
  t.pass('property held');
});
