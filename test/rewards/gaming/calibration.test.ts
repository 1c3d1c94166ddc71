import { DEFAULT_SCORING } from '../../../src/scoring/score-groups.js';
// The calibration set of honest plans (test/support/real-plans.ts) against the gaming signals and the guarded
// reward: no real plan raises a signal, and the guarded profile ranks them as the paper does.
import { DEFAULT_PLAN_LIMITS } from '../../../src/plan/parse.js';
import t from 'tap';
import { absoluteScore, INITIAL_WEIGHTS } from '../../../src/grpo/compose.js';
import { DEFAULT_RESOLVED } from '../../../src/plan/palette.js';
import { evaluatePlan, groupContext } from '../../../src/scoring/evaluate-plan.js';
import { realPlans, spearman } from '../../support/real-plans.js';

const LIMITS = DEFAULT_PLAN_LIMITS;
const judge = (r: ReturnType<typeof realPlans>[number], reward_profile: 'paper' | 'guarded') =>
  evaluatePlan(r.plan, groupContext(r.query, r.profile), DEFAULT_RESOLVED, LIMITS, { strict: true, lambda_hard: DEFAULT_SCORING.lambda_hard, reward_profile });

t.test('spearman gives what scipy 1.17.1 spearmanr gives', async (t) => {
  const cases: [number[], number[], number][] = [
    [[1, 2, 3, 4, 5], [5, 6, 7, 8, 7], 0.8207826816681233],
    [[1, 1, 2, 2, 3, 3, 4], [1, 2, 1, 2, 3, 4, 4], 0.8207547169811322],
    [[3.5, 1.2, 9.9, 4.4, 4.4, 0.1, 7.0, 2.2], [2.0, 1.0, 8.0, 5.0, 3.0, 0.5, 9.0, 2.5], 0.9461247469114745],
  ];
  for (const [x, y, expected] of cases) t.ok(Math.abs(spearman(x, y) - expected) < 1e-12, `${spearman(x, y)} vs ${expected}`);
});

t.test('every real plan passes the strict gate and raises no gaming signal', async (t) => {
  const plans = realPlans();
  t.ok(plans.length >= 17, `${plans.length} real plans`);
  for (const r of plans) {
    const e = judge(r, 'paper');
    t.equal(e.gate.failed, false, `${r.id}: gated ${e.gate.reasons.join(', ')}`);
    t.same(e.gaming_flags, [], `${r.id}: ${e.gaming?.signals.map((s) => `${s.code} ${s.message}`).join('; ')}`);
  }
});

t.test('guarded and paper scores rank the real plans alike (Spearman ρ ≥ 0.9)', async (t) => {
  const plans = realPlans();
  const paper = plans.map((r) => absoluteScore(judge(r, 'paper').raw, false, INITIAL_WEIGHTS));
  const guarded = plans.map((r) => absoluteScore(judge(r, 'guarded').raw, false, INITIAL_WEIGHTS));
  const rho = spearman(paper, guarded);
  t.ok(rho >= 0.9, `ρ = ${rho}`);
});
