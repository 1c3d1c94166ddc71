import type { GedFields, StructuralSimilarity } from '../contracts/evaluate-plan.js';
import type { DiGraph, GedResult } from './ged.js';

export const DEFAULT_KAPPA = 2.5;

// PersonalPlan A.4: TS = exp(−GED / κ), κ = 2.5. The paper names κ without printing the form; this is the
// exponential kernel we adopt: 1 for isomorphic graphs, e^−0.4 ≈ 0.67 per unit edit, never negative.
export function similarityFromGed(ged: number, kappa: number = DEFAULT_KAPPA): number {
  return Math.exp(-ged / kappa);
}

/** A distance as the response reports it: the best edit path found, and its bounds when the budget cut the search. */
export function gedFields(ged: GedResult): GedFields {
  return { ged: ged.distance, exact: ged.exact, ged_bounds: { lower: ged.lower, upper: ged.distance } };
}

/** TS of a plan's dependency graph against a gold plan's (structure only: step labels are ignored), from their distance. */
export function structuralSimilarity(plan: DiGraph, gold: DiGraph, ged: GedResult, kappa: number = DEFAULT_KAPPA): StructuralSimilarity {
  return {
    value: similarityFromGed(ged.distance, kappa),
    ...gedFields(ged),
    kappa,
    nodes: { plan: plan.nodes, gold: gold.nodes },
    edges: { plan: plan.edges.length, gold: gold.edges.length },
  };
}
