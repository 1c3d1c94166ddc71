import t from 'tap';
import type { Plan } from '../../src/contracts/plan.js';
import { dependencyFacts, graphFacts } from '../../src/plan/graph.js';

// Small deterministic generator, so a failure names a seed that reproduces it.
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A random plan: edges mostly forward in declaration order (a DAG), with duplicates, unknown steps and, when `cyclic`, back edges. */
function randomPlan(seed: number, cyclic: boolean) {
  const rnd = lcg(seed);
  const n = Math.floor(rnd() * 12);
  const ids = Array.from({ length: n }, (_, i) => `s${i}`);
  const steps = ids.map((id, i) => {
    const depends_on: string[] = [];
    for (let j = 0; j < i; j++) if (rnd() < 0.3) depends_on.push(ids[j]!);
    if (depends_on.length > 0 && rnd() < 0.2) depends_on.push(depends_on[0]!);
    if (rnd() < 0.1) depends_on.push('missing');
    if (cyclic && i + 1 < n && rnd() < 0.3) depends_on.push(ids[i + 1 + Math.floor(rnd() * (n - i - 1))]!);
    if (cyclic && rnd() < 0.05) depends_on.push(id);
    return { id, agent: `a${Math.floor(rnd() * 3)}`, subtask: 't', instruction: 'x', depends_on };
  });
  // Declaration order and execution order both shuffled: neither may change a fact.
  const shuffle = <T>(xs: T[]) =>
    xs
      .map((x) => [rnd(), x] as const)
      .sort((a, b) => a[0] - b[0])
      .map(([, x]) => x);
  // Now and then a second step with an id already taken, as a planner may write (a schema error).
  if (n > 1 && rnd() < 0.1) steps.push({ ...steps[n - 1]!, agent: 'a9', depends_on: [...steps[n - 1]!.depends_on, ids[0]!] });
  const declared = shuffle(steps);
  const rank = new Map(shuffle(ids).map((id, k) => [id, k]));
  // The first step of each id, as analyzePlan indexes them.
  const bySteps = new Map<string, (typeof steps)[number]>();
  for (const s of declared) if (!bySteps.has(s.id)) bySteps.set(s.id, s);
  const loops = cyclic && n > 1 && rnd() < 0.5 ? [new Set(ids.slice(0, Math.ceil(n / 2)))] : [];
  return { plan: { steps: declared } as unknown as Plan, rank, loops, steps: bySteps };
}

t.test('the DAG fast path gives exactly the facts of the graphology computation', async (t) => {
  let acyclic = 0;
  for (let seed = 1; seed <= 400; seed++) {
    const { plan, rank, loops, steps } = randomPlan(seed, seed % 3 === 0);
    const fast = dependencyFacts(plan, rank, loops, steps);
    const reference = graphFacts(plan, rank, loops, steps);
    if (fast.cycles.length === 0) acyclic++;
    t.same(fast, reference, `seed ${seed}`);
  }
  // Both paths were exercised: most plans are DAGs, some have cycles.
  t.ok(acyclic > 250 && acyclic < 400, `${acyclic} of 400 plans acyclic`);
});

t.test('duplicate edges count once in the topology and in orderedEdges, in declaration order', async (t) => {
  const steps = [
    { id: 'a', agent: 'x', depends_on: [] },
    { id: 'b', agent: 'y', depends_on: ['a', 'a', 'nope'] },
    { id: 'c', agent: 'y', depends_on: ['b', 'a'] },
  ];
  const plan = { steps } as unknown as Plan;
  const facts = dependencyFacts(
    plan,
    new Map([
      ['a', 0],
      ['b', 1],
      ['c', 2],
    ]),
    [],
    new Map(steps.map((s) => [s.id, s])),
  );
  t.same(facts.orderedEdges, [
    ['a', 'b'],
    ['b', 'c'],
    ['a', 'c'],
  ]);
  t.equal(facts.declaredEdges, 5);
  t.equal(facts.resolvedEdges, 4);
  t.same(facts.topology, {
    steps: 3,
    edges: 3,
    edge_density: 1,
    max_fan_in: 2,
    max_fan_out: 2,
    layer_width: 1,
    critical_path: 3,
    critical_path_ratio: 1,
    inter_agent_edge_ratio: 2 / 3,
  });
});

t.test('a plan far above the default step limit (an operator may raise it) is layered without overflowing', async (t) => {
  const n = 300_000;
  const steps = Array.from({ length: n }, (_, i) => ({ id: `s${i}`, agent: 'a', depends_on: i === 0 ? [] : [`s${i - 1}`, 's0'] }));
  const rank = new Map(steps.map((s, i) => [s.id, i]));
  const facts = dependencyFacts({ steps } as unknown as Plan, rank, [], new Map(steps.map((s) => [s.id, s])));
  t.equal(facts.topology.critical_path, n);
  t.equal(facts.topology.max_fan_out, n - 1, 's0 precedes every step');
  t.equal(facts.topology.edges, 2 * n - 3, 's1 names s0 twice');
});
