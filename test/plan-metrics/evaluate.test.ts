import t from 'tap';
import { GED_BUDGET } from '../../src/contracts/evaluate-plan.js';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE } from '../../src/contracts/examples.js';
import { evaluatePlanMetrics } from '../../src/plan-metrics/index.js';
import { useLite } from '../support/encoder.js';
import { basePlan } from '../support/plans.js';

const encoder = await useLite();
const embed = (texts: readonly string[]) => encoder.embed(texts);

t.test('per-plan metrics and cross-plan scores for plans of one query under two profiles', async (t) => {
  const other = basePlan();
  const r = await evaluatePlanMetrics([{ plan: EXAMPLE_PLAN, profile: EXAMPLE_PROFILE }, { plan: other, profile: { tags: 'python rust' } }, { plan: other }], {
    gold: EXAMPLE_PLAN,
    embed,
  });
  t.same(r.options, { kappa: 2.5, delta_tbq: 0.1, ged_budget: GED_BUDGET.default });
  const [a, b, c] = r.plans;
  t.match(a, {
    topology: { steps: 10, edges: 10, critical_path: 9 },
    structural_similarity: { value: 1, ged: 0, exact: true },
    tool_binding: { coverage: 0.5, bound_steps: 5 },
    phases: { value: 1 },
    skill_hits: { value: 0.75 },
  });
  // basePlan is a 4-step chain: against the 10-step gold, 6 steps and 7 edges to insert at least.
  t.ok(b!.structural_similarity!.ged >= 13 && b!.structural_similarity!.exact);
  t.equal(b!.structural_similarity!.value, Math.exp(-b!.structural_similarity!.ged / 2.5));
  t.match(b!.skill_hits, { value: 1 / 2, basis: 'tags_skills' });
  t.equal(c!.skill_hits, null, 'no profile, no skill-hit ratio');
  t.equal(r.cross!.pairs.length, 3);
  t.equal(r.cross!.pairs[2]!.ged, 0);
  t.ok(r.cross!.profile_variance > 0 && r.cross!.profile_variance < 1);

  const single = await evaluatePlanMetrics([{ plan: EXAMPLE_PLAN }], { embed, kappa: 1, deltaTbq: 0.9, gedBudget: 0 });
  t.equal(single.cross, null);
  t.equal(single.plans[0]!.structural_similarity, null, 'no gold, no TS');
  t.ok(single.plans[0]!.tool_binding.quality < 1, 'δ = 0.9 fails most checks');
});

// Its time per plan is measured by bench/timing-claims.ts.
