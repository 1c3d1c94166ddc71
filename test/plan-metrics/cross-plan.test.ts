import t from 'tap';
import type { Plan } from '../../src/contracts/plan.js';
import { jaccard } from '../../src/common/jaccard.js';
import { agentRoles, crossPlanMetrics, edgeRoles, groupDiversity, planPairs, RoleNames, roleEdges } from '../../src/plan-metrics/cross-plan.js';
import { graphEditDistances, planGraph } from '../../src/plan-metrics/ged.js';
import { basePlan } from '../support/plans.js';

/** The cross-plan metrics with every pair's distance searched to the end. */
const cross = (plans: Plan[], kappa?: number) => {
  const graphs = plans.map(planGraph);
  return crossPlanMetrics(plans, graphEditDistances(planPairs(plans.length).map(([a, b]) => [graphs[a]!, graphs[b]!] as const)), kappa);
};

// p1: chain a → b → c → d, roles Python tutor (a, b) and Practice coach (c, d).
// p2: coach renamed Code reviewer, and d depends on b instead of c (GED 2 from p1).
const p1 = basePlan();
const p2: Plan = {
  ...p1,
  agents: p1.agents.map((a) => (a.id === 'coach' ? { ...a, role: 'Code reviewer' } : a)),
  steps: p1.steps.map((s) => (s.id === 'd' ? { ...s, depends_on: ['b'] } : s)),
};
// p3: p1 under another profile with the same structure and roles, written differently.
const p3: Plan = { ...p1, agents: p1.agents.map((a) => ({ ...a, role: a.role.toUpperCase().replace(' ', '_') })) };

/** A plan's role edges by name. */
const namedEdges = (plan: Plan, roles = new RoleNames()) =>
  [...roleEdges(plan, roles)].map((e) =>
    edgeRoles(e)
      .map((r) => roles.names[r])
      .join(' → '),
  );

t.test('roles and role edges', async (t) => {
  t.same([...agentRoles(p1)], ['python tutor', 'practice coach']);
  t.same([...agentRoles(p3)], ['python tutor', 'practice coach'], 'case and separators normalized');
  t.same(namedEdges(p1), ['python tutor → python tutor', 'python tutor → practice coach', 'practice coach → practice coach']);
  t.same(namedEdges(p2), ['python tutor → python tutor', 'python tutor → code reviewer']);
  const dangling = { ...p1, steps: p1.steps.map((s) => (s.id === 'b' ? { ...s, agent: 'ghost', depends_on: ['a', 'zz'] } : s)) };
  t.same(namedEdges(dangling), ['practice coach → practice coach'], 'edges touching an unknown agent or step are left out');
  const shared = new RoleNames();
  t.same([...roleEdges(p1, shared)], [...roleEdges(p3, shared)], 'roles written differently are one number');
  t.same(namedEdges(p2, shared), ['python tutor → python tutor', 'python tutor → code reviewer'], 'numbers given on first sight');
});

t.test('jaccard', async (t) => {
  t.equal(jaccard(new Set([1, 2]), new Set([2, 3])), 1 / 3);
  t.equal(jaccard(new Set(), new Set()), 1);
  t.equal(jaccard(new Set([1]), new Set()), 0);
});

t.test('profile variance, role and edge Jaccard over three plans', async (t) => {
  const c = cross([p1, p2, p3])!;
  t.same(
    c.pairs.map((p) => [p.a, p.b, p.ged, p.role_jaccard, p.edge_jaccard]),
    [
      [0, 1, 2, 1 / 3, 1 / 4],
      [0, 2, 0, 1, 1],
      [1, 2, 2, 1 / 3, 1 / 4],
    ],
  );
  t.equal(c.pairs[0]!.ts, Math.exp(-2 / 2.5));
  t.ok(Math.abs(c.profile_variance - (2 * (1 - Math.exp(-0.8))) / 3) < 1e-12);
  t.equal(c.mean_ged, 4 / 3);
  t.ok(Math.abs(c.role_jaccard - 5 / 9) < 1e-12);
  t.equal(c.edge_jaccard, 0.5);
  t.equal(c.exact, true);
  t.same(c.pairs[0]!.ged_bounds, { lower: 2, upper: 2 }, 'an exact distance is its own bounds');
});

t.test('planPairs: every pair i < j once, in order', async (t) => {
  t.same(planPairs(3), [
    [0, 1],
    [0, 2],
    [1, 2],
  ]);
  t.same(planPairs(1), []);
});

t.test('identical plans have variance 0; one plan has no cross metrics', async (t) => {
  t.match(cross([p1, p3]), { profile_variance: 0, mean_ged: 0, role_jaccard: 1, edge_jaccard: 1 });
  t.equal(cross([p1]), null);
  t.equal(cross([p1, p2], 1)!.profile_variance, 1 - Math.exp(-2));
});

t.test('group diversity: mean pairwise 1 − edge Jaccard; 0 for a group collapsed onto one structure', async (t) => {
  // Pairs (p1, p2), (p1, p3), (p2, p3): edge Jaccard 1/4, 1, 1/4 (above) → distances 3/4, 0, 3/4.
  t.equal(groupDiversity([p1, p2, p3]), 0.5);
  t.equal(groupDiversity([p1, p1, p3]), 0, 'the same hand-offs, however worded');
  t.equal(groupDiversity([p1, p2]), 0.75);
  t.equal(groupDiversity([p1]), null, 'one plan has no pair');
  t.equal(groupDiversity([]), null);
  t.equal(groupDiversity([p1, p2, p3]), 1 - cross([p1, p2, p3])!.edge_jaccard, 'the same pairs as the A.4 edge Jaccard');
});
