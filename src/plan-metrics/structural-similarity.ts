import type { StructuralSimilarity } from '../contracts/evaluate-plan.js';
import type { Plan } from '../contracts/plan.js';
import { DEFAULT_GED_TIMEOUT_MS, graphEditDistance, planGraph } from './ged.js';

export const DEFAULT_KAPPA = 2.5;

// PersonalPlan A.4: TS = exp(−GED / κ), κ = 2.5. The paper names κ without printing the form; this is the
// exponential kernel we adopt: 1 for isomorphic graphs, e^−0.4 ≈ 0.67 per unit edit, never negative.
export function similarityFromGed(ged: number, kappa: number = DEFAULT_KAPPA): number {
  return Math.exp(-ged / kappa);
}

/** TS of a plan's dependency graph against a gold plan's (structure only: step labels are ignored). */
export function structuralSimilarity(plan: Plan, gold: Plan, options: { kappa?: number; timeoutMs?: number; stop?: () => boolean } = {}): StructuralSimilarity {
  const kappa = options.kappa ?? DEFAULT_KAPPA;
  const a = planGraph(plan);
  const b = planGraph(gold);
  const ged = graphEditDistance(a, b, { timeoutMs: options.timeoutMs ?? DEFAULT_GED_TIMEOUT_MS, stop: options.stop });
  return {
    value: similarityFromGed(ged.distance, kappa),
    ged: ged.distance,
    exact: ged.exact,
    kappa,
    nodes: { plan: a.nodes, gold: b.nodes },
    edges: { plan: a.edges.length, gold: b.edges.length },
  };
}
