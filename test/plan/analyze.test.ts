import t from 'tap';
import { analyzePlan } from '../../src/plan/analyze.js';
import { DEFAULT_RESOLVED, resolvePalette } from '../../src/plan/palette.js';
import { basePlan, withStep } from '../support/plans.js';

const codes = (p = basePlan(), palette = DEFAULT_RESOLVED) => analyzePlan(p, palette).violations.map((v) => `${v.code} ${v.path}`);

t.test('the base plan is clean', async (t) => {
  t.same(codes(), []);
});

t.test('dependency cycle: reported once with the concrete cycle and its path', async (t) => {
  const a = analyzePlan(withStep(basePlan(), 'b', { depends_on: ['a', 'd'] }), DEFAULT_RESOLVED);
  const cycle = a.violations.filter((v) => v.code === 'cycle');
  t.equal(cycle.length, 1);
  t.same(cycle[0]!.cycle, ['b', 'c', 'd', 'b']);
  t.equal(cycle[0]!.path, '$.steps[1].depends_on');
  t.equal(cycle[0]!.severity, 'error');
  t.same(a.dependencies.cycles, [['b', 'c', 'd', 'b']]);
  // execution_order cannot satisfy a cycle: the back edge d → b is also an ordering violation.
  t.ok(a.violations.some((v) => v.code === 'order_before_prerequisite' && v.path === '$.execution_order[1]'));
  t.equal(a.topology.layer_width, null);
});

t.test('self-dependency is a cycle', async (t) => {
  const a = analyzePlan(withStep(basePlan(), 'c', { depends_on: ['c'] }), DEFAULT_RESOLVED);
  t.same(a.dependencies.cycles, [['c', 'c']]);
});

t.test('a cycle inside a declared bounded loop is not a cycle; an unbounded loop is', async (t) => {
  const looping = withStep(basePlan(), 'c', { depends_on: ['b', 'd'] });
  const bounded = analyzePlan({ ...looping, loops: [{ id: 'retry', nodes: ['c', 'd'], max_iterations: 3 }] }, DEFAULT_RESOLVED);
  t.same(bounded.violations, []);
  t.same(bounded.dependencies.cycles, []);
  t.equal(bounded.topology.critical_path, 4, 'the loop back edge is ignored for layering');

  const unbounded = analyzePlan({ ...looping, loops: [{ id: 'retry', nodes: ['c', 'd'] }] }, DEFAULT_RESOLVED);
  t.same(
    unbounded.violations.map((v) => `${v.code} ${v.path}`),
    ['unbounded_loop $.loops[0].max_iterations', 'cycle $.steps[2].depends_on', 'order_before_prerequisite $.execution_order[2]'],
  );
  for (const bad of [0, -1, 2.5, null]) {
    const v = analyzePlan({ ...basePlan(), loops: [{ nodes: ['c'], max_iterations: bad }] }, DEFAULT_RESOLVED).violations;
    t.same(
      v.map((x) => x.code),
      ['unbounded_loop'],
      `max_iterations ${bad}`,
    );
  }
});

t.test('a loop naming an unknown node', async (t) => {
  t.same(codes({ ...basePlan(), loops: [{ id: 'l', nodes: ['c', 'zz'], max_iterations: 2 }] }), ['loop_unknown_node $.loops[0].nodes[1]']);
});

t.test('tool outside the palette, and tool the agent lacks', async (t) => {
  t.same(codes(withStep(basePlan(), 'b', { tool: 'ShellTool' })), ['tool_not_in_palette $.steps[1].tool']);
  t.same(codes(withStep(basePlan(), 'b', { tool: 'FileWriterTool' })), ['tool_not_in_agent_tools $.steps[1].tool']);
  t.same(codes(basePlan(), resolvePalette(['CodeInterpreterTool', 'FileWriterTool'])), ['agent_tool_not_in_palette $.agents[0].tools[0]']);
});

t.test('dangling dependency, unknown agent, unknown subtask', async (t) => {
  t.same(codes(withStep(basePlan(), 'd', { depends_on: ['c', 'ghost'] })), ['unknown_dependency $.steps[3].depends_on[1]']);
  t.same(codes(withStep(basePlan(), 'd', { agent: 'ghost', tool: null })), ['unknown_agent $.steps[3].agent']);
  t.same(codes(withStep(basePlan(), 'd', { subtask: 'ghost' })), ['unknown_subtask $.steps[3].subtask']);
  const p = basePlan();
  p.subtasks[0]!.agent = 'nobody';
  t.same(codes(p), ['unknown_agent $.subtasks[0].agent']);
});

t.test('execution_order: unknown step, missing step, step before its prerequisite', async (t) => {
  t.same(codes({ ...basePlan(), execution_order: ['a', 'b', 'x', 'c'] }), ['unknown_order_step $.execution_order[2]', 'missing_from_order $.steps[3].id']);
  t.same(codes({ ...basePlan(), execution_order: ['a', 'c', 'b', 'd'] }), ['order_before_prerequisite $.execution_order[1]']);
});

t.test('duplicate ids', async (t) => {
  const p = basePlan();
  p.steps.push({ ...p.steps[0]!, depends_on: [] });
  p.agents.push({ id: 'tutor', role: 'again', tools: [] });
  t.same(codes(p), ['duplicate_id $.agents[2].id', 'duplicate_id $.steps[4].id']);
});

t.test('topology of a hand-drawn graph (PersonalPlan Table 4 metrics)', async (t) => {
  // a → b, a → c, b → d, c → d: two layers in the middle, critical path a-b-d (3 steps).
  const p = basePlan();
  p.steps[2] = { ...p.steps[2]!, depends_on: ['a'] };
  p.steps[3] = { ...p.steps[3]!, depends_on: ['b', 'c'] };
  const topo = analyzePlan(p, DEFAULT_RESOLVED).topology;
  t.same(topo, {
    steps: 4,
    edges: 4,
    edge_density: 4 / 6,
    max_fan_in: 2,
    max_fan_out: 2,
    layer_width: 2,
    critical_path: 3,
    critical_path_ratio: 3 / 4,
    // agents: a,b tutor; c,d coach → a→c and b→d cross agents.
    inter_agent_edge_ratio: 2 / 4,
  });
});

t.test('ids that are Object.prototype names are ordinary ids, on the acyclic and the cyclic path', async (t) => {
  // '\u0000constructor' next to 'constructor' checks that the escaping of prototype names is injective.
  const hostile = { a: '__proto__', b: 'constructor', c: '\u0000constructor', d: 'hasOwnProperty' } as Record<string, string>;
  const rename = (id: string) => hostile[id] ?? id;
  const p = basePlan();
  p.steps = p.steps.map((s) => ({ ...s, id: rename(s.id), depends_on: s.depends_on.map(rename) }));
  p.execution_order = p.execution_order.map(rename);
  const clean = analyzePlan(p, DEFAULT_RESOLVED);
  t.same(clean.violations, []);
  t.match(clean.topology, { steps: 4, edges: 3, critical_path: 4, layer_width: 1 });

  const cyclic = analyzePlan(withStep(p, '__proto__', { depends_on: ['hasOwnProperty'] }), DEFAULT_RESOLVED);
  t.same(cyclic.dependencies.cycles, [['__proto__', 'constructor', '\u0000constructor', 'hasOwnProperty', '__proto__']]);
});
