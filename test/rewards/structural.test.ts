import t from 'tap';
import { analyzePlan } from '../../src/plan/analyze.js';
import { DEFAULT_RESOLVED } from '../../src/plan/palette.js';
import { structuralReward } from '../../src/rewards/structural.js';
import { basePlan, withStep } from '../support/plans.js';

const score = (p = basePlan()) => structuralReward(analyzePlan(p, DEFAULT_RESOLVED), DEFAULT_RESOLVED);

t.test('a clean plan scores 1 on every part', async (t) => {
  t.same(score(), { value: 1, dag: 1, dc: 1, atr: 1, step_tool_validity: 1, agent_coverage: 1, unused_agents: [] });
});

t.test('cycle: DAG = 0, so R_struct = (0 + 1 + 1) / 3', async (t) => {
  const s = score(withStep(basePlan(), 'a', { depends_on: ['d'] }));
  t.equal(s.dag, 0);
  t.equal(s.value, 2 / 3);
});

t.test('dangling dependency: DC = resolved / declared = 3 / 5', async (t) => {
  // declared edges: b←a, c←b, d←c, d←x, d←y
  const s = score(withStep(basePlan(), 'd', { depends_on: ['c', 'x', 'y'] }));
  t.equal(s.dc, 3 / 5);
  t.equal(s.value, (1 + 3 / 5 + 1) / 3);
});

t.test('no declared edges: DC is vacuously 1', async (t) => {
  const p = basePlan();
  p.steps = p.steps.map((s) => ({ ...s, depends_on: [] }));
  t.equal(score(p).dc, 1);
});

t.test('ATR: an unauthorized tool and an idle declared agent', async (t) => {
  // Step b calls FileWriterTool, which tutor lacks: 3 of 4 steps valid. Agent "idle" runs no step: 2 of 3 agents used.
  const p = withStep(basePlan(), 'b', { tool: 'FileWriterTool' });
  p.agents.push({ id: 'idle', role: 'Declared but never used', tools: [] });
  const s = score(p);
  t.equal(s.step_tool_validity, 3 / 4);
  t.equal(s.agent_coverage, 2 / 3);
  t.equal(s.atr, (3 / 4 + 2 / 3) / 2);
  t.same(s.unused_agents, ['idle']);
  t.equal(s.value, (1 + 1 + (3 / 4 + 2 / 3) / 2) / 3);
});

t.test('a step whose agent does not exist is invalid; a tool outside the palette is invalid', async (t) => {
  t.equal(score(withStep(basePlan(), 'a', { agent: 'ghost' })).step_tool_validity, 3 / 4);
  const p = withStep(basePlan(), 'a', { tool: 'Telepathy' });
  p.agents[0]!.tools.push('Telepathy');
  t.equal(score(p).step_tool_validity, 3 / 4);
});

t.test('an empty plan scores 0 on ATR', async (t) => {
  const s = score({ agents: [], subtasks: [], steps: [], execution_order: [] });
  t.same([s.dag, s.dc, s.atr], [1, 1, 0]);
});
