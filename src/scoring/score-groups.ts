import type { ResolvedOptions } from '../contracts/options.js';
import type { ScorePlanRequest, ScorePlanResponse } from '../contracts/score-plan.js';
import { absoluteScore, composeGroup, INITIAL_WEIGHTS, SOFT_AXES, type AxisVector } from '../grpo/compose.js';
import { resolvePalette } from '../plan/palette.js';
import type { PlanLimits } from '../plan/parse.js';
import { SignalCoverage } from '../rewards/personalization/reward.js';
import { profileSignals } from '../rewards/personalization/signals.js';
import { evaluatePlan } from './evaluate-plan.js';
import { VERSIONS } from './versions.js';

export interface ScoringDefaults {
  lambda_hard: number;
}

export const COMPOSITION_DEFAULTS = { epsilon: 1e-6, tau: 1e-6, ddof: 0 as const };

export function resolveOptions(o: ScorePlanRequest['options'], defaults: ScoringDefaults): ResolvedOptions {
  return {
    strict: o?.strict ?? false,
    lambda_hard: o?.lambda_hard ?? defaults.lambda_hard,
    epsilon: o?.epsilon ?? COMPOSITION_DEFAULTS.epsilon,
    tau: o?.tau ?? COMPOSITION_DEFAULTS.tau,
    ddof: o?.ddof ?? COMPOSITION_DEFAULTS.ddof,
  };
}

export interface ScoreSummary {
  groups: number;
  plans: number;
  gated: number;
  mean_raw: AxisVector;
}

/** Scores every rollout group of a request. Groups are independent, so their order never changes a result. */
export function scoreGroups(
  req: ScorePlanRequest,
  limits: PlanLimits,
  defaults: ScoringDefaults,
  weights: AxisVector = INITIAL_WEIGHTS,
): { response: ScorePlanResponse; summary: ScoreSummary } {
  const options = resolveOptions(req.options, defaults);
  const palette = resolvePalette(req.palette);
  const totals: AxisVector = { struct: 0, pers: 0, ped: 0 };
  let plans = 0;
  let gated = 0;

  const groups = req.groups.map((group, gi) => {
    const signals = profileSignals(group.profile);
    const coverage = new SignalCoverage(signals);
    const evals = group.completions.map((c) => evaluatePlan(c, coverage, palette, limits, options));
    const composed = composeGroup(evals.map((e) => ({ raw: e.raw, hard: e.gate.penalty })), weights, options);
    const groupGated = evals.filter((e) => e.gate.failed).length;
    plans += evals.length;
    gated += groupGated;
    for (const e of evals) for (const k of SOFT_AXES) totals[k] += e.raw[k];
    return {
      index: gi,
      id: group.id ?? null,
      size: evals.length,
      gated: groupGated,
      signals,
      axis_mean: composed.axis_mean,
      axis_std: composed.axis_std,
      reward_mean: composed.reward_mean,
      reward_std: composed.reward_std,
      plans: evals.map((e, i) => ({
        index: i,
        reward: composed.members[i]!.reward,
        advantage: composed.members[i]!.advantage,
        score: absoluteScore(e.raw, e.gate.failed, weights),
        gate: e.gate,
        raw: e.raw,
        z: composed.members[i]!.z,
        components: e.components,
        violations: e.violations,
        normalizations: e.normalizations,
        topology: e.topology,
      })),
    };
  });

  const n = Math.max(1, plans);
  return {
    response: {
      groups,
      weights,
      options,
      palette: { source: palette.source, tools: [...palette.tools.keys()] },
      versions: VERSIONS,
    },
    summary: { groups: groups.length, plans, gated, mean_raw: { struct: totals.struct / n, pers: totals.pers / n, ped: totals.ped / n } },
  };
}
