import t from 'tap';
import { normalizePlan } from '../../src/plan/normalize.js';

t.test('documented variants are rewritten and each is reported with its path', async (t) => {
  const raw = {
    plan: {
      agents: [{ agent_id: 'a1', role: 'Tutor', tools: 'CodeInterpreterTool' }],
      subtasks: [{ id: 1, title: 'Intro' }],
      steps: [
        { step_id: 's1', subtask_id: 1, agent: 'a1', instruction: 'x', tool: 'none', dependencies: null },
        { id: 's2', subtask: '1', agent_id: 'a1', instruction: 'y', depends_on: 's1', human_in_the_loop: true },
        { id: 's3', subtask: '1', agent: 'a1', instruction: 'z', prerequisites: [2] },
        { id: 's4', subtask: '1', agent: 'a1', instruction: 'w' },
      ],
      executionOrder: ['s1', 's2', 's3', 's4'],
      loops: [{ body: ['s2', 's3'], max_iters: 3 }],
    },
  };
  const { plan, normalizations } = normalizePlan(raw);
  t.same(plan, {
    agents: [{ id: 'a1', role: 'Tutor', tools: ['CodeInterpreterTool'] }],
    subtasks: [{ id: '1', name: 'Intro' }],
    steps: [
      { id: 's1', subtask: '1', agent: 'a1', instruction: 'x', tool: null, depends_on: [] },
      { id: 's2', subtask: '1', agent: 'a1', instruction: 'y', depends_on: ['s1'], human_input: true },
      { id: 's3', subtask: '1', agent: 'a1', instruction: 'z', depends_on: ['2'] },
      { id: 's4', subtask: '1', agent: 'a1', instruction: 'w', depends_on: [] },
    ],
    execution_order: ['s1', 's2', 's3', 's4'],
    loops: [{ nodes: ['s2', 's3'], max_iterations: 3 }],
  });
  const byPath = Object.fromEntries(normalizations.map((n) => [`${n.path} ${n.rule}`, n.detail]));
  t.same(Object.keys(byPath).sort(), [
    '$.agents[0].agent_id field_alias',
    '$.agents[0].tools scalar_to_list',
    '$.executionOrder field_alias',
    '$.loops[0].body field_alias',
    '$.loops[0].max_iters field_alias',
    '$.plan unwrap_plan',
    '$.steps[0].dependencies field_alias',
    '$.steps[0].depends_on null_to_empty_list',
    '$.steps[0].step_id field_alias',
    '$.steps[0].subtask id_number_to_string',
    '$.steps[0].subtask_id field_alias',
    '$.steps[0].tool empty_tool_to_null',
    '$.steps[1].agent_id field_alias',
    '$.steps[1].depends_on scalar_to_list',
    '$.steps[1].human_in_the_loop field_alias',
    '$.steps[2].depends_on[0] id_number_to_string',
    '$.steps[2].prerequisites field_alias',
    '$.steps[3].depends_on missing_list_to_empty',
    '$.subtasks[0].id id_number_to_string',
    '$.subtasks[0].title field_alias',
  ]);
  t.equal(byPath['$.steps[0].dependencies field_alias'], 'dependencies → depends_on');
});

t.test('a canonical field wins over its alias, which is left alone', async (t) => {
  const { plan, normalizations } = normalizePlan({ steps: [{ id: 's', depends_on: ['a'], dependencies: ['b'] }] });
  t.same((plan.steps as unknown[])[0], { id: 's', depends_on: ['a'], dependencies: ['b'] });
  t.same(normalizations, []);
});

t.test('a clean canonical plan produces no normalizations', async (t) => {
  const clean = { agents: [{ id: 'a', role: 'r', tools: [] }], subtasks: [], steps: [], execution_order: [] };
  t.same(normalizePlan(structuredClone(clean)), { plan: clean, normalizations: [] });
});

t.test('wrong shapes are left for schema validation', async (t) => {
  const { plan } = normalizePlan({ agents: 'none', steps: [1, 'two', { id: 's', depends_on: { a: 1 } }], execution_order: 's' });
  t.equal(plan.agents, 'none');
  t.same(plan.steps, [1, 'two', { id: 's', depends_on: { a: 1 } }]);
  t.same(plan.execution_order, ['s']);
});
