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

/** Numbers for agent roles, normalized as the lexicon normalizes phrases, shared by the plans compared. */
export class RoleNames {
  readonly names: string[] = [];
  readonly #byName = new Map<string, number>();
  // Plans of a group write their roles alike: most are found as written, without normalizing them again.
  readonly #byRaw = new Map<string, number>();

  id(role: string): number {
    let id = this.#byRaw.get(role);
    if (id === undefined) {
      const name = normalizePhrase(role);
      id = this.#byName.get(name);
      if (id === undefined) {
        id = this.names.length;
        this.names.push(name);
        this.#byName.set(name, id);
      }
      this.#byRaw.set(role, id);
    }
    return id;
  }
}

// An edge is from · EDGE_BASE + to: one number per pair of role numbers, below 2^53 for any plan a request holds.
const EDGE_BASE = 2 ** 26;

/** The roles of a roleEdges edge. */
export const edgeRoles = (edge: number): [from: number, to: number] => [Math.floor(edge / EDGE_BASE), edge % EDGE_BASE];

/**
 * Dependency edges named by the roles of the two steps' agents ("python tutor → practice coach"), as
 * numbers (edgeRoles, `roles`). Step ids are arbitrary per plan ("st3" of one plan is unrelated to "st3" of
 * another) and step text is paraphrased, while roles are what plans for different profiles share: the set
 * says which hand-offs between kinds of agent the plan uses. Edges with an unknown agent are left out.
 */
export function roleEdges(plan: Plan, roles: RoleNames): Set<number> {
  const roleOf = new Map<string, number>();
  for (const a of plan.agents) if (!roleOf.has(a.id)) roleOf.set(a.id, roles.id(a.role));
  const agentOf = new Map<string, string>();
  for (const s of plan.steps) if (!agentOf.has(s.id)) agentOf.set(s.id, s.agent);
  const edges = new Set<number>();
  for (const s of plan.steps) {
    const to = roleOf.get(s.agent);
    for (const dep of s.depends_on) {
      const depAgent = agentOf.get(dep);
      const from = depAgent === undefined ? undefined : roleOf.get(depAgent);
      if (from !== undefined && to !== undefined) edges.add(from * EDGE_BASE + to);
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
  const roles = new RoleNames();
  const edges = plans.map((p) => roleEdges(p, roles));
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
  const names = new RoleNames();
  const edges = plans.map((p) => roleEdges(p, names));
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
