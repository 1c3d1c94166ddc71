import type { ResolvedOptions } from '../contracts/options.js';
import { DEFAULT_RUN_CONFIG, type RunConfig, type RunStepInfoSchema } from '../contracts/runs.js';
import type { ViolationCode } from '../contracts/violations.js';
import type { GamingSignalCode } from '../contracts/gaming.js';
import type { z } from 'zod';
import type { ScorePlanRequest, ScorePlanResponse } from '../contracts/score-plan.js';
import { absoluteScore, composeGroup, INITIAL_WEIGHTS, type SOFT_AXES, type AxisVector } from '../grpo/compose.js';
import { resolvePalette, type ResolvedPalette } from '../plan/palette.js';
import type { PlanLimits } from '../plan/parse.js';
import type { ProfileSignal } from '../contracts/results.js';
import { evaluatePlan, groupContext, type GateOptions, type PlanEvaluation } from './evaluate-plan.js';
import { groupDiversity } from '../plan-metrics/cross-plan.js';
import { VERSIONS } from './versions.js';
import type { PlanVerdict } from '../rewards/judge/plan-rubric.js';

/** What a request's options fall back to: the run's configuration, or the service defaults without a run. */
export type ScoringDefaults = Omit<ResolvedOptions, 'strict'>;

/** Per-axis mean of raw rewards, for the request log line (0 for none). */
function meanVector(xs: readonly AxisVector[]): AxisVector {
  const n = Math.max(1, xs.length);
  const mean = (k: (typeof SOFT_AXES)[number]) => xs.reduce((a, x) => a + x[k], 0) / n;
  return { struct: mean('struct'), pers: mean('pers'), ped: mean('ped') };
}

/** The options a run's configuration sets for scoring its requests. */
export function scoringDefaultsOf(c: RunConfig): ScoringDefaults {
  return { lambda_hard: c.lambda_hard, reward_profile: c.reward_profile, epsilon: c.epsilon, tau: c.tau, ddof: c.ddof };
}

export const DEFAULT_SCORING: ScoringDefaults = scoringDefaultsOf(DEFAULT_RUN_CONFIG);

export function resolveOptions(o: ScorePlanRequest['options'], defaults: ScoringDefaults): ResolvedOptions {
  return {
    strict: o?.strict ?? false,
    lambda_hard: o?.lambda_hard ?? defaults.lambda_hard,
    reward_profile: o?.reward_profile ?? defaults.reward_profile,
    epsilon: o?.epsilon ?? defaults.epsilon,
    tau: o?.tau ?? defaults.tau,
    ddof: o?.ddof ?? defaults.ddof,
  };
}

/** The upper bounds of the aboutness histogram (tutor_plan_aboutness): aboutness lies in [0, 1]. */
export const ABOUTNESS_BUCKETS = [0, 0.25, 0.5, 0.75, 0.9, 1] as const;

export interface ScoreSummary {
  groups: number;
  plans: number;
  gated: number;
  /** Gated plans per reason (a plan gated for two reasons counts under each). */
  gate_reasons: Partial<Record<ViolationCode, number>>;
  /** Plans with at least one gaming signal, and plans per signal (a plan with two counts in both). */
  flagged: number;
  gaming: Partial<Record<GamingSignalCode, number>>;
  /**
   * The aboutness of the plans that have one, as counts (a few numbers, whatever the plans): how many, their
   * sum, and how many at or below each of ABOUTNESS_BUCKETS.
   */
  aboutness: { count: number; sum: number; buckets: number[] };
  mean_raw: AxisVector;
  /** The run the plans were counted in, once they were. */
  run?: { id: string; step: number; status: z.infer<typeof RunStepInfoSchema>['status']; weights: AxisVector; ema: AxisVector | null };
}

/** What a request's judged plans come to, for its log line and the metrics. */
export function summaryOf(plans: readonly Judged[], groups: number): ScoreSummary {
  const { raws, gated, gateReasons, flagged, gaming, aboutness } = tallyOf(plans, []);
  return { groups, plans: plans.length, gated, gate_reasons: gateReasons, flagged, gaming, aboutness: aboutnessCounts(aboutness), mean_raw: meanVector(raws) };
}

/** Aboutness values as ScoreSummary keeps them. */
function aboutnessCounts(values: readonly number[]): ScoreSummary['aboutness'] {
  let sum = 0;
  for (const x of values) sum += x;
  return { count: values.length, sum, buckets: ABOUTNESS_BUCKETS.map((le) => values.filter((x) => x <= le).length) };
}

/** What composition needs of a judged plan; the rest of its evaluation is passed through as `detail`. */
export interface Judged {
  gate: PlanEvaluation['gate'];
  raw: AxisVector;
  /** The gaming signals the plan raised (codes only; the evidence is in its detail). */
  gaming_flags: GamingSignalCode[];
  /** G, how far the plan as a whole is about its question (gaming.guarded.about); null without (not parsed, no guarded credit). */
  aboutness: number | null;
  /** The LLM judge's verdict, with `options.judge` (§10.7); `raw` is then already scaled by its factor. */
  judge?: PlanVerdict;
}

/** A plan's evaluation with its aboutness beside it, as evaluateGroup gives it. */
export type Evaluated = PlanEvaluation & Pick<Judged, 'aboutness'>;

/** The evaluation with its aboutness read out of its gaming detail. */
export const withAboutness = (e: PlanEvaluation): Evaluated => ({ ...e, aboutness: e.gaming?.guarded?.about ?? null });

export interface EvaluatedGroup<E extends Judged = Evaluated> {
  id: string | null;
  signals: ProfileSignal[];
  plans: E[];
  /** Mean pairwise structural distance of the group's readable plans; null with fewer than two. */
  diversity: number | null;
}

/** What a request's judged groups come to (summaryOf their plans). */
export function summaryOfGroups(groups: readonly EvaluatedGroup<Judged>[]): ScoreSummary {
  return summaryOf(
    groups.flatMap((g) => g.plans),
    groups.length,
  );
}

export interface Tally {
  raws: AxisVector[];
  gated: number;
  /** Plans per gate reason (a plan with two reasons counts in both). */
  gateReasons: Partial<Record<ViolationCode, number>>;
  /** One per group with at least two readable plans. */
  diversities: number[];
  /** Plans that raised any gaming signal, and plans per signal (a plan with two counts in both). */
  flagged: number;
  gaming: Partial<Record<GamingSignalCode, number>>;
  /**
   * The aboutness of each plan that has one, in plan order. Absent (a tally made by hand): not known, and
   * the step's mean aboutness is then a gap.
   */
  aboutness?: number[];
}

/**
 * What a request's plans bring to their step, whatever the weights: raw axis values, how many were gated
 * and for which reasons, and the diversity of each group that has one.
 */
export function tallyOf(plans: readonly Judged[], groups: readonly { diversity: number | null }[]): Required<Tally> {
  const gateReasons: Tally['gateReasons'] = {};
  for (const p of plans) for (const r of p.gate.reasons) gateReasons[r] = (gateReasons[r] ?? 0) + 1;
  const gaming: Tally['gaming'] = {};
  for (const p of plans) for (const c of p.gaming_flags) gaming[c] = (gaming[c] ?? 0) + 1;
  return {
    raws: plans.map((p) => p.raw),
    gated: plans.filter((p) => p.gate.failed).length,
    gateReasons,
    diversities: groups.flatMap((g) => (g.diversity === null ? [] : [g.diversity])),
    flagged: plans.filter((p) => p.gaming_flags.length > 0).length,
    gaming,
    aboutness: plans.flatMap((p) => (p.aboutness === null ? [] : [p.aboutness])),
  };
}

/** The weight-independent half of scoring for one group: every plan judged on its own. The costly part. */
export function evaluateGroup(group: ScorePlanRequest['groups'][number], palette: ResolvedPalette, limits: PlanLimits, gate: GateOptions): EvaluatedGroup {
  const context = groupContext(group.query, group.profile, group.reference);
  const plans = group.completions.map((c) => withAboutness(evaluatePlan(c, context, palette, limits, gate)));
  return { id: group.id ?? null, signals: context.signals, plans, diversity: groupDiversity(plans.flatMap((e) => (e.plan ? [e.plan] : []))) };
}

/** evaluateGroup for each group; groups may be split across threads. */
export function evaluateGroups(groups: ScorePlanRequest['groups'], palette: ResolvedPalette, limits: PlanLimits, gate: GateOptions): EvaluatedGroup[] {
  return groups.map((group) => evaluateGroup(group, palette, limits, gate));
}

/** What composition needs of a plan's evaluation, without the rest of it. */
export const judgedOf = (e: Judged): Judged => ({ gate: e.gate, raw: e.raw, gaming_flags: e.gaming_flags, aboutness: e.aboutness });

/** The fields of an evaluation that a response carries after the composed ones. */
export const planDetail = (e: PlanEvaluation) => ({
  components: e.components,
  gaming: e.gaming,
  violations: e.violations,
  normalizations: e.normalizations,
  topology: e.topology,
});

/**
 * The group-relative half for one group, the `index`-th of its request: z-scores, rewards and advantages
 * with the step's weights (cheap arithmetic). `detail` adds each plan's remaining fields, after the
 * composed ones.
 */
export function composeEvaluatedGroup<E extends Judged, D extends object>(
  group: EvaluatedGroup<E>,
  index: number,
  options: ResolvedOptions,
  weights: AxisVector,
  detail: (e: E) => D,
) {
  const evals = group.plans;
  const composed = composeGroup(
    evals.map((e) => ({ raw: e.raw, hard: e.gate.penalty })),
    weights,
    options,
  );
  return {
    index,
    id: group.id,
    size: evals.length,
    gated: evals.filter((e) => e.gate.failed).length,
    signals: group.signals,
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
      gaming_flags: e.gaming_flags,
      aboutness: e.aboutness,
      ...(e.judge && { judge: e.judge }),
      ...detail(e),
    })),
  };
}

/** Every group of a request composed, and what its plans come to. */
export function composeGroups<E extends Judged, D extends object>(
  evaluated: readonly EvaluatedGroup<E>[],
  options: ResolvedOptions,
  weights: AxisVector,
  detail: (e: E) => D,
) {
  return {
    groups: evaluated.map((group, gi) => composeEvaluatedGroup(group, gi, options, weights, detail)),
    summary: summaryOfGroups(evaluated),
  };
}

/** What a response says about the palette its plans were checked against. */
export const paletteInfo = (palette: ResolvedPalette) => ({ source: palette.source, tools: [...palette.tools.keys()] });

/** Scores every rollout group of a request. Groups are independent, so their order never changes a result. */
export function scoreGroups(
  req: ScorePlanRequest,
  limits: PlanLimits,
  defaults: ScoringDefaults,
  weights: AxisVector = INITIAL_WEIGHTS,
): { response: Omit<ScorePlanResponse, 'run'>; summary: ScoreSummary } {
  const options = resolveOptions(req.options, defaults);
  const palette = resolvePalette(req.palette);
  // Each group composed as soon as it is judged: its plans (the parsed copies) die young, not outliving
  // the collector's scavenges to the end of the request.
  const judged: EvaluatedGroup<Judged>[] = [];
  const groups = req.groups.map((group, gi) => {
    const evaluated = evaluateGroup(group, palette, limits, options);
    judged.push({ ...evaluated, plans: evaluated.plans.map(judgedOf) });
    return composeEvaluatedGroup(evaluated, gi, options, weights, planDetail);
  });
  return { response: { groups, weights, options, palette: paletteInfo(palette), versions: VERSIONS }, summary: summaryOfGroups(judged) };
}
