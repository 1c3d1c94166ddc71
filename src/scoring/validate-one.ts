import type { ValidatePlanRequest, ValidatePlanResponse } from '../contracts/validate-plan.js';
import { absoluteScore, INITIAL_WEIGHTS } from '../grpo/compose.js';
import { resolvePalette } from '../plan/palette.js';
import type { PlanLimits } from '../plan/parse.js';
import { evaluatePlan, groupContext } from './evaluate-plan.js';
import { withAboutness, type ScoringDefaults } from './score-groups.js';
import { VERSIONS } from './versions.js';

/** One plan on its own: the checks and raw rewards of /score-plan without the group-relative terms. */
export function validateOne(req: ValidatePlanRequest, limits: PlanLimits, defaults: ScoringDefaults): ValidatePlanResponse {
  const palette = resolvePalette(req.palette);
  const context = groupContext(req.query, req.profile);
  const gateOptions = {
    strict: req.options?.strict ?? false,
    lambda_hard: req.options?.lambda_hard ?? defaults.lambda_hard,
    reward_profile: req.options?.reward_profile ?? defaults.reward_profile,
  };
  const e = withAboutness(evaluatePlan(req.plan, context, palette, limits, gateOptions));
  return {
    parsed: e.parsed,
    plan: e.plan,
    gate: e.gate,
    raw: e.raw,
    score: absoluteScore(e.raw, e.gate.failed, INITIAL_WEIGHTS),
    components: e.components,
    gaming: e.gaming,
    gaming_flags: e.gaming_flags,
    aboutness: e.aboutness,
    violations: e.violations,
    normalizations: e.normalizations,
    topology: e.topology,
    signals: context.signals,
    weights: INITIAL_WEIGHTS,
    palette: { source: palette.source, tools: [...palette.tools.keys()] },
    versions: VERSIONS,
  };
}
