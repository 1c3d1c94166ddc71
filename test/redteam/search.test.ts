// The red-team on the calibration set: under `paper` it finds plans the reward pays more than every real
// plan of their group; under `guarded`, with the same seeded search and budget, it finds none. A guard that
// stopped working would make the second test fail like the first passes.
import { DEFAULT_PLAN_LIMITS } from '../../src/plan/parse.js';
import t from 'tap';
import type { Plan } from '../../src/contracts/plan.js';
import { DEFAULT_RESOLVED } from '../../src/plan/palette.js';
import { OPERATOR_NAMES, OPERATORS, profileBits } from '../../src/redteam/operators.js';
import { groupsOf, redTeam } from '../../src/redteam/search.js';
import { mulberry32 } from '../../src/common/rng.js';
import { realPlans } from '../support/real-plans.js';

const LIMITS = DEFAULT_PLAN_LIMITS;
const BUDGET = 300;
const groups = groupsOf(realPlans());
const attack = (profile: 'paper' | 'guarded') => redTeam(groups, { profile, budget: BUDGET, seed: 1, palette: DEFAULT_RESOLVED, limits: LIMITS });

t.test('paper: exploits found in every group, each raising gaming signals', async (t) => {
  const r = attack('paper');
  t.ok(r.margin > 0, `margin ${r.margin}`);
  for (const g of r.groups) {
    t.ok(g.margin > 0 && g.exploit !== null, `${g.group}: ${g.best_found} over ${g.best_real}`);
    t.ok(g.exploit!.signals.length > 0, `${g.group}: caught by ${g.exploit!.signals.join(', ')}`);
    t.ok(g.exploit!.guarded_score < g.best_real, `${g.group}: guarded would pay it ${g.exploit!.guarded_score}`);
    t.equal(g.evaluations, BUDGET);
  }
});

t.test('guarded: no plan found beats the best real plan of its group', async (t) => {
  const r = attack('guarded');
  t.equal(r.groups.length, groups.length);
  for (const g of r.groups) t.ok(g.margin <= 0 && g.exploit === null, `${g.group}: best found ${g.best_found}, best real ${g.best_real}`);
  t.ok(r.margin <= 0, `margin ${r.margin}`);
});

t.test('the same seed gives the same report', async (t) => {
  const small = groupsOf(realPlans().slice(0, 2));
  const run = () => redTeam(small, { profile: 'paper', budget: 40, seed: 7, palette: DEFAULT_RESOLVED, limits: LIMITS });
  t.same(run(), run());
});

t.test('every operator keeps a plan readable or declines', async (t) => {
  const r = realPlans()[0]!;
  const material = { query: r.query, profileBits: profileBits(r.profile) };
  t.ok(material.profileBits.length > 3, 'profile bits');
  const rand = mulberry32(3);
  for (const name of OPERATOR_NAMES) {
    const out: Plan | null = OPERATORS[name](r.plan, material, rand);
    if (out === null) continue;
    t.ok(Array.isArray(out.steps) && out.execution_order.every((id) => out.steps.some((s) => s.id === id)), `${name}: order names its steps`);
    t.not(JSON.stringify(out), JSON.stringify(r.plan), `${name} changed the plan`);
  }
});
