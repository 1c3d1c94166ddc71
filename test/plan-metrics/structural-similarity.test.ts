import t from 'tap';
import { EXAMPLE_PLAN } from '../../src/contracts/examples.js';
import type { Plan } from '../../src/contracts/plan.js';
import { graphEditDistance, planGraph } from '../../src/plan-metrics/ged.js';
import { DEFAULT_KAPPA, similarityFromGed, structuralSimilarity } from '../../src/plan-metrics/structural-similarity.js';
import { basePlan } from '../support/plans.js';

const similarity = (plan: Plan, gold: Plan, kappa?: number) => {
  const [a, b] = [planGraph(plan), planGraph(gold)];
  return structuralSimilarity(a, b, graphEditDistance(a, b), kappa);
};

t.test('TS = exp(−GED / 2.5)', async (t) => {
  t.equal(DEFAULT_KAPPA, 2.5);
  t.equal(similarityFromGed(0), 1);
  t.equal(similarityFromGed(1), Math.exp(-0.4));
  t.equal(similarityFromGed(5), Math.exp(-2));
  t.equal(similarityFromGed(2, 1), Math.exp(-2));
});

t.test('a plan against itself, against a relabelled copy, and against an edited copy', async (t) => {
  t.same(similarity(EXAMPLE_PLAN, EXAMPLE_PLAN), {
    value: 1,
    ged: 0,
    exact: true,
    ged_bounds: { lower: 0, upper: 0 },
    kappa: 2.5,
    nodes: { plan: 10, gold: 10 },
    edges: { plan: 10, gold: 10 },
  });
  // Structure only: renaming steps, agents and text changes nothing.
  const renamed = {
    ...EXAMPLE_PLAN,
    steps: EXAMPLE_PLAN.steps.map((s) => ({ ...s, id: `x${s.id}`, instruction: 'something else', depends_on: s.depends_on.map((d) => `x${d}`) })),
  };
  t.equal(similarity(renamed, EXAMPLE_PLAN).value, 1);

  // basePlan is a 4-step chain a → b → c → d; add a step e depending on b: one node and one edge inserted.
  const gold = basePlan();
  const plan = { ...gold, steps: [...gold.steps, { ...gold.steps[3]!, id: 'e', depends_on: ['b'] }] };
  const ts = similarity(plan, gold);
  t.equal(ts.ged, 2);
  t.equal(ts.value, Math.exp(-2 / 2.5));
  t.same(ts.nodes, { plan: 5, gold: 4 });
  t.same(ts.edges, { plan: 4, gold: 3 });
  // Reversing the chain's middle edge: one edge deleted, one inserted.
  const reversed = { ...gold, steps: gold.steps.map((s) => (s.id === 'c' ? { ...s, depends_on: [] } : s.id === 'b' ? { ...s, depends_on: ['a', 'c'] } : s)) };
  t.equal(similarity(reversed, gold, 1).value, Math.exp(-2));
});
