// The guarded credit (docs/rewards.md §10.3) on the corpus's 540 honest plans, each scored with its group's
// reference: taking teaching content away never raises it. Every edit of every plan: deleting a step, or
// replacing the text of a step the credit fully counts (aboutness 1) with a generic sentence.
import t from 'tap';
import { absoluteScore, INITIAL_WEIGHTS } from '../../../src/grpo/compose.js';
import { DEFAULT_RESOLVED } from '../../../src/plan/palette.js';
import { DEFAULT_PLAN_LIMITS } from '../../../src/plan/parse.js';
import { singleRemovalEdits } from '../../../src/redteam/fluent-search.js';
import { evaluatePlan, groupContext } from '../../../src/scoring/evaluate-plan.js';
import { DEFAULT_SCORING } from '../../../src/scoring/score-groups.js';
import type { Plan } from '../../../src/contracts/plan.js';
import { corpusGroups } from '../../support/real-plans.js';

t.test('with a reference, no removal edit raises the guarded score of an honest plan', async (t) => {
  let edits = 0;
  let lowered = 0;
  for (const g of corpusGroups()) {
    const context = groupContext(g.query, g.profile, g.reference);
    const judge = (plan: Plan) => {
      const e = evaluatePlan(plan, context, DEFAULT_RESOLVED, DEFAULT_PLAN_LIMITS, {
        strict: false,
        lambda_hard: DEFAULT_SCORING.lambda_hard,
        reward_profile: 'guarded',
      });
      return { e, score: absoluteScore(e.raw, e.gate.failed, INITIAL_WEIGHTS) };
    };
    for (const { style, plan } of g.plans) {
      const before = judge(plan);
      const about = new Map(before.e.gaming!.guarded!.steps.map((s) => [s.step, s.about]));
      for (const edit of singleRemovalEdits(plan)) {
        if (edit.kind === 'hollow_step' && about.get(edit.step) !== 1) continue;
        edits++;
        const after = judge(edit.plan).score;
        if (after < before.score - 1e-12) lowered++;
        if (after > before.score + 1e-12) t.fail(`${g.id} ${style}: ${edit.kind} ${edit.step} raised ${before.score} to ${after}`);
      }
    }
  }
  t.ok(edits > 4000, `${edits} edits`);
  t.comment(`${lowered} of ${edits} edits lower the score, none raise it`);
  t.ok(lowered / edits > 0.5, 'most lower it');
});
