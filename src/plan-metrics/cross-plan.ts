import { jaccard } from '../common/jaccard.js';
import type { CrossPlanMetrics } from '../contracts/evaluate-plan.js';
import type { Plan } from '../contracts/plan.js';
import { normalizePhrase } from '../rewards/personalization/matcher.js';
import type { GedResult } from './ged.js';
import { DEFAULT_KAPPA, gedFields, similarityFromGed } from './structural-similarity.js';

/** Agent roles, normalized as the lexicon normalizes phrases (case, spaces, hyphens, underscores). */
export function agentRoles(plan: Plan): Set<string> {
  return new Set(plan.agents.map((a) => normalizePhrase(a.role)).filter((r) => r.length > 0));
}

/**
 * Dependency edges named by the roles of the two steps' agents ("python tutor → practice coach"). Step
 * ids are arbitrary per plan ("st3" of one plan is unrelated to "st3" of another) and step text is
 * paraphrased, while roles are what plans for different profiles share: the set says which hand-offs
 * between kinds of agent the plan uses. Edges with an unknown agent are left out.
 */
export function roleEdges(plan: Plan): Set<string> {
  const roleOf = new Map<string, string>();
  for (const a of plan.agents) if (!roleOf.has(a.id)) roleOf.set(a.id, normalizePhrase(a.role));
  const agentOf = new Map<string, string>();
  for (const s of plan.steps) if (!agentOf.has(s.id)) agentOf.set(s.id, s.agent);
  const edges = new Set<string>();
  for (const s of plan.steps) {
    const to = roleOf.get(s.agent);
    for (const dep of s.depends_on) {
      const depAgent = agentOf.get(dep);
      const from = depAgent === undefined ? undefined : roleOf.get(depAgent);
      if (from !== undefined && to !== undefined) edges.add(`${from} → ${to}`);
    }
  }
  return edges;
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/**
 * How far apart the plans of one rollout group are: mean over pairs of (1 − edge Jaccard), the edge
 * Jaccard of PersonalPlan A.4 below. 0 when every plan hands off between the same kinds of agent (a group
 * collapsed onto one template), up to 1 when no two share a hand-off. Set operations only, so cheap
 * enough for every scored group, unlike the GED-based profile variance. Null with fewer than two plans.
 */
export function groupDiversity(plans: readonly Plan[]): number | null {
  if (plans.length < 2) return null;
  const edges = plans.map(roleEdges);
  return mean(planPairs(edges.length).map(([a, b]) => 1 - jaccard(edges[a]!, edges[b]!)));
}

/** The pairs i < j of n plans, in the order crossPlanMetrics reads their distances. */
export function planPairs(n: number): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) pairs.push([a, b]);
  return pairs;
}

// PersonalPlan A.4, across the plans of one query under different profiles:
//   profile variance = mean over pairs (1 − TS(P_i, P_j)) = mean (1 − exp(−GED_ij / κ));
//   role Jaccard = mean over pairs J(roles_i, roles_j);  edge Jaccard = mean over pairs J(role edges_i, role edges_j).
// Choice: 1 − TS rather than GED / (size) so the variance is on the same scale as TS, bounded in [0, 1),
// and does not depend on how the GED is normalized by plan size.
/** `geds`: the graph edit distance of each pair of planPairs(plans.length), in that order. */
export function crossPlanMetrics(plans: readonly Plan[], geds: readonly GedResult[], kappa: number = DEFAULT_KAPPA): CrossPlanMetrics | null {
  if (plans.length < 2) return null;
  const roles = plans.map(agentRoles);
  const edges = plans.map(roleEdges);
  const pairs: CrossPlanMetrics['pairs'] = planPairs(plans.length).map(([a, b], i) => {
    const ged = geds[i]!;
    return {
      a,
      b,
      ...gedFields(ged),
      ts: similarityFromGed(ged.distance, kappa),
      role_jaccard: jaccard(roles[a]!, roles[b]!),
      edge_jaccard: jaccard(edges[a]!, edges[b]!),
    };
  });
  return {
    profile_variance: mean(pairs.map((p) => 1 - p.ts)),
    mean_ged: mean(pairs.map((p) => p.ged)),
    role_jaccard: mean(pairs.map((p) => p.role_jaccard)),
    edge_jaccard: mean(pairs.map((p) => p.edge_jaccard)),
    exact: pairs.every((p) => p.exact),
    pairs,
  };
}
