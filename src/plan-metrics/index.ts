import type { CrossPlanMetrics, PlanMetrics } from '../contracts/evaluate-plan.js';
import type { Tool } from '../contracts/palette.js';
import type { Plan } from '../contracts/plan.js';
import type { Profile } from '../contracts/profile.js';
import { analyzePlan } from '../plan/analyze.js';
import { resolvePalette } from '../plan/palette.js';
import { phaseCoverage, skillHitRatio } from './coverage.js';
import { crossPlanMetrics } from './cross-plan.js';
import { DEFAULT_GED_TIMEOUT_MS } from './ged.js';
import { DEFAULT_KAPPA, structuralSimilarity } from './structural-similarity.js';
import { DEFAULT_DELTA_TBQ, toolBindingQuality, type EmbedFn } from './tool-binding.js';

export interface PlanMetricsInput {
  plan: Plan;
  profile?: Profile;
}

export interface PlanMetricsOptions {
  /** Gold plan for TS; without it `structural_similarity` is null. */
  gold?: Plan;
  embed: EmbedFn;
  deltaTbq?: number;
  kappa?: number;
  /** Per GED computation (one per plan against gold, one per pair of plans). */
  gedTimeoutMs?: number;
  /** Polled during graph edit distance search: true cuts every remaining search short (the caller gave up). */
  stop?: () => boolean;
  /** Tool palette (descriptions for TBQ, phases for retrieval tools); the default eight tools otherwise. */
  palette?: ReadonlyArray<string | Tool>;
}

export interface PlanMetricsReport {
  plans: PlanMetrics[];
  /** Across the plans (same query, different profiles); null with fewer than two plans. */
  cross: CrossPlanMetrics | null;
  options: { kappa: number; delta_tbq: number; ged_timeout_ms: number };
}

/** PersonalPlan Appendix A.4 plan metrics for parsed plans; see src/plan-metrics/README.md. */
export async function evaluatePlanMetrics(plans: readonly PlanMetricsInput[], options: PlanMetricsOptions): Promise<PlanMetricsReport> {
  const kappa = options.kappa ?? DEFAULT_KAPPA;
  const delta = options.deltaTbq ?? DEFAULT_DELTA_TBQ;
  const timeoutMs = options.gedTimeoutMs ?? DEFAULT_GED_TIMEOUT_MS;
  const palette = resolvePalette(options.palette);
  const out: PlanMetrics[] = [];
  for (const { plan, profile } of plans) {
    const analysis = analyzePlan(plan, palette);
    out.push({
      topology: analysis.topology,
      structural_similarity: options.gold ? structuralSimilarity(plan, options.gold, { kappa, timeoutMs, stop: options.stop }) : null,
      tool_binding: await toolBindingQuality(plan, palette, options.embed, delta),
      phases: phaseCoverage(analysis, palette),
      skill_hits: profile === undefined ? null : skillHitRatio(plan, profile),
    });
  }
  return {
    plans: out,
    cross: crossPlanMetrics(
      plans.map((p) => p.plan),
      { kappa, timeoutMs, stop: options.stop },
    ),
    options: { kappa, delta_tbq: delta, ged_timeout_ms: timeoutMs },
  };
}
