import type { Config } from '../config.js';
import type { PlanLimits } from '../plan/parse.js';
import type { ScoringDefaults } from '../scoring/score-groups.js';

/** What the routes need from configuration, resolved once. */
export interface ScoringContext {
  planLimits: PlanLimits;
  requestLimits: { maxPlansPerRequest: number };
  defaults: ScoringDefaults;
}

export function scoringContext(config: Config): ScoringContext {
  return {
    planLimits: {
      maxCompletionBytes: config.MAX_COMPLETION_BYTES,
      maxStepsPerPlan: config.MAX_STEPS_PER_PLAN,
    },
    requestLimits: { maxPlansPerRequest: config.MAX_PLANS_PER_REQUEST },
    defaults: { lambda_hard: config.LAMBDA_HARD },
  };
}
