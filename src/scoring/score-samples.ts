import type { Profile } from '../contracts/profile.js';
import { absoluteScore, weightedSum, type AxisVector } from '../grpo/compose.js';
import { DEFAULT_RESOLVED } from '../plan/palette.js';
import type { PlanLimits } from '../plan/parse.js';
import { evaluatePlan, groupContext, type GateOptions, type GroupContext } from './evaluate-plan.js';
import { withAboutness, type Evaluated, type Judged } from './score-groups.js';

/** One sample as it is judged: the completion, the learner's profile and, when known, the query it answers. */
export interface Sample {
  completion: unknown;
  profile: Profile;
  query: string | null;
}

/** Each sample judged alone, its profile's signals computed once per distinct profile. The costly half. */
export function evaluateSamples(samples: readonly Sample[], limits: PlanLimits, gate: GateOptions): Evaluated[] {
  const contexts = new Map<string, GroupContext>();
  return samples.map(({ completion, profile, query }) => {
    const key = JSON.stringify([query, profile]);
    let context = contexts.get(key);
    if (!context) {
      context = groupContext(query, profile);
      contexts.set(key, context);
    }
    return withAboutness(evaluatePlan(completion, context, DEFAULT_RESOLVED, limits, gate));
  });
}

/** Σ_k w_k R_k + R_hard: no group is visible, so the soft axes are weighted raw, not z-scored. */
export function composeSample(e: Judged, weights: AxisVector): { reward: number; score: number } {
  return { reward: weightedSum(e.raw, weights) + e.gate.penalty, score: absoluteScore(e.raw, e.gate.failed, weights) };
}
