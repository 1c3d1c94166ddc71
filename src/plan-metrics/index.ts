import { GED_BUDGET, type CrossPlanMetrics, type PlanMetrics } from '../contracts/evaluate-plan.js';
import type { Tool } from '../contracts/palette.js';
import type { Plan } from '../contracts/plan.js';
import type { Profile } from '../contracts/profile.js';
import { analyzePlan } from '../plan/analyze.js';
import { resolvePalette } from '../plan/palette.js';
import { phaseCoverage, skillHitRatio } from './coverage.js';
import { crossPlanMetrics, planPairs } from './cross-plan.js';
import { graphEditDistances, planGraph } from './ged.js';
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
  /** Search work shared by every GED of the call (one per plan against gold, one per pair of plans). */
  gedBudget?: number;
  /** Polled during the graph edit distance searches: true cuts them short (the caller gave up). */
  stop?: () => boolean;
  /** Tool palette (descriptions for TBQ, phases for retrieval tools); the default eight tools otherwise. */
  palette?: ReadonlyArray<string | Tool>;
}

export interface PlanMetricsReport {
  plans: PlanMetrics[];
  /** Across the plans (same query, different profiles); null with fewer than two plans. */
  cross: CrossPlanMetrics | null;
  options: { kappa: number; delta_tbq: number; ged_budget: number };
}

/** PersonalPlan Appendix A.4 plan metrics for parsed plans; see src/plan-metrics/README.md. */
export async function evaluatePlanMetrics(plans: readonly PlanMetricsInput[], options: PlanMetricsOptions): Promise<PlanMetricsReport> {
  const kappa = options.kappa ?? DEFAULT_KAPPA;
  const delta = options.deltaTbq ?? DEFAULT_DELTA_TBQ;
  const budget = options.gedBudget ?? GED_BUDGET.default;
  const palette = resolvePalette(options.palette);
  const graphs = plans.map((p) => planGraph(p.plan));
  const gold = options.gold ? planGraph(options.gold) : undefined;
  // One budget for every distance of the request: each plan against the gold plan, then each pair of plans.
  const geds = graphEditDistances(
    [...(gold ? graphs.map((g) => [g, gold] as const) : []), ...planPairs(plans.length).map(([a, b]) => [graphs[a]!, graphs[b]!] as const)],
    { budget, stop: options.stop },
  );
  const toGold = gold ? geds.splice(0, graphs.length) : [];
  const out: PlanMetrics[] = [];
  for (const [i, { plan, profile }] of plans.entries()) {
    const analysis = analyzePlan(plan, palette);
    out.push({
      topology: analysis.topology,
      structural_similarity: gold ? structuralSimilarity(graphs[i]!, gold, toGold[i]!, kappa) : null,
      tool_binding: await toolBindingQuality(plan, palette, options.embed, delta),
      phases: phaseCoverage(analysis, palette),
      skill_hits: profile === undefined ? null : skillHitRatio(plan, profile),
    });
  }
  return {
    plans: out,
    cross: crossPlanMetrics(
      plans.map((p) => p.plan),
      geds,
      kappa,
    ),
    options: { kappa, delta_tbq: delta, ged_budget: budget },
  };
}
