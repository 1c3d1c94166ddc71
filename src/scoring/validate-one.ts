import type { ValidatePlanRequest, ValidatePlanResponse } from '../contracts/validate-plan.js';
import { absoluteScore, INITIAL_WEIGHTS } from '../grpo/compose.js';
import { resolvePalette } from '../plan/palette.js';
import type { PlanLimits } from '../plan/parse.js';
import { SignalCoverage } from '../rewards/personalization/reward.js';
import { profileSignals } from '../rewards/personalization/signals.js';
import { evaluatePlan } from './evaluate-plan.js';
import type { ScoringDefaults } from './score-groups.js';
import { VERSIONS } from './versions.js';

/** One plan on its own: the checks and raw rewards of /score-plan without the group-relative terms. */
export function validateOne(req: ValidatePlanRequest, limits: PlanLimits, defaults: ScoringDefaults): ValidatePlanResponse {
  const palette = resolvePalette(req.palette);
  const signals = req.profile === undefined ? [] : profileSignals(req.profile);
  const coverage = req.profile === undefined ? null : new SignalCoverage(signals);
  const gateOptions = { strict: req.options?.strict ?? false, lambda_hard: req.options?.lambda_hard ?? defaults.lambda_hard };
  const e = evaluatePlan(req.plan, coverage, palette, limits, gateOptions);
  return {
    parsed: e.parsed,
    plan: e.plan,
    gate: e.gate,
    raw: e.raw,
    score: absoluteScore(e.raw, e.gate.failed, INITIAL_WEIGHTS),
    components: e.components,
    violations: e.violations,
    normalizations: e.normalizations,
    topology: e.topology,
    signals,
    weights: INITIAL_WEIGHTS,
    palette: { source: palette.source, tools: [...palette.tools.keys()] },
    versions: VERSIONS,
  };
}
