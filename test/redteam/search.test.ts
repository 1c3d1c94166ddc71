// The red-team with the operators of operators.ts: under `paper` it finds plans the reward pays more than every
// real plan of their group; under `guarded`, scored with the group's reference as a trainer with an SFT data
// set does (docs/rewards.md §11j), the same seeded search and budget gains less in every group, and guarded
// pays none of the paper's exploits more than the best honest plan. How far each profile is climbed on the
// evaluation split is bench/guarded-eval.ts's.
import { DEFAULT_PLAN_LIMITS } from '../../src/plan/parse.js';
import t from 'tap';
import type { Plan } from '../../src/contracts/plan.js';
import { DEFAULT_RESOLVED } from '../../src/plan/palette.js';
import { OPERATOR_NAMES, OPERATORS, profileBits } from '../../src/redteam/operators.js';
import { groupsOf, redTeam, type RedTeamGroup } from '../../src/redteam/search.js';
import { mulberry32 } from '../../src/common/rng.js';
import { corpusGroups, realPlans } from '../support/real-plans.js';

const LIMITS = DEFAULT_PLAN_LIMITS;
const BUDGET = 300;
const attack = (groups: RedTeamGroup[], profile: 'paper' | 'guarded') =>
  redTeam(groups, { profile, budget: BUDGET, seed: 1, palette: DEFAULT_RESOLVED, limits: LIMITS });
// Every eighth calibration group of the corpus, both sources, each with its reference.
const referenced: RedTeamGroup[] = corpusGroups('calibration')
  .filter((_, i) => i % 8 === 0)
  .map((g) => ({ id: g.id, query: g.query, profile: g.profile, reference: g.reference, plans: g.plans.map((p) => p.plan) }));

t.test('paper: exploits found in every group', async (t) => {
  const groups = groupsOf(realPlans());
  const r = attack(groups, 'paper');
  t.ok(r.margin > 0, `margin ${r.margin}`);
  for (const g of r.groups) {
    t.ok(g.margin > 0 && g.exploit !== null, `${g.group}: ${g.best_found} over ${g.best_real}`);
    t.equal(g.evaluations, BUDGET);
  }
});

t.test(
  'guarded with a reference: the search gains less than under paper in every group, and guarded pays no paper exploit more than the best honest plan',
  async (t) => {
    t.ok(
      referenced.length >= 8 &&
        new Set(
          corpusGroups('calibration')
            .filter((_, i) => i % 8 === 0)
            .map((g) => g.source),
        ).size === 2,
      'groups of both sources',
    );
    const guarded = attack(referenced, 'guarded');
    const paper = attack(referenced, 'paper');
    for (const [i, g] of guarded.groups.entries())
      t.ok(g.margin < paper.groups[i]!.margin, `${g.group}: guarded margin ${g.margin}, paper ${paper.groups[i]!.margin}`);
    t.ok(guarded.groups.filter((g) => g.exploit === null).length >= guarded.groups.length - 1, 'at most one group with a guarded exploit');
    for (const g of paper.groups) {
      t.ok(g.exploit !== null, `${g.group}: paper exploited`);
      t.ok(g.exploit!.guarded_score <= g.best_real, `${g.group}: guarded would pay the paper exploit ${g.exploit!.guarded_score}, at most ${g.best_real}`);
    }
  },
);

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
