import type { Plan } from './plan.js';
import type { ProfileObject } from './profile.js';

// A realistic MAP-PPL-sized plan (3 agents, 4 subtasks, 10 steps): the Swagger example, the start-up
// self-check and the benchmark's template.
export const EXAMPLE_PROFILE: ProfileObject = {
  about_me: 'Data analyst moving from Excel to Python; I learn best from small worked examples.',
  tags: ['python', 'pandas'],
  skills: ['SQL', 'Excel'],
  experience: 'Two years of SQL reporting on PostgreSQL, a little Python scripting.',
  goals: 'Automate my weekly reports with pandas.',
};

export const EXAMPLE_QUERY = 'How do I group a pandas DataFrame by month and sum a column?';

export const EXAMPLE_PLAN: Plan = {
  agents: [
    { id: 'tutor', role: 'Python data tutor', goal: 'Teach pandas grouping to an SQL-literate analyst', tools: ['CodeDocsSearchTool', 'CodeInterpreterTool'] },
    { id: 'coach', role: 'Practice coach', goal: 'Set and check hands-on exercises', tools: ['CodeInterpreterTool', 'FileWriterTool'] },
    { id: 'reviewer', role: 'Code reviewer', goal: 'Give feedback and consolidate learning', tools: ['FileReadTool'] },
  ],
  subtasks: [
    { id: 's1', name: 'Assess background', objective: 'Find what the learner knows about SQL GROUP BY and pandas', agent: 'tutor' },
    { id: 's2', name: 'Demonstrate groupby', objective: 'Show resample and groupby on a date column', agent: 'tutor' },
    { id: 's3', name: 'Practice', objective: 'Learner applies grouping to their own report', agent: 'coach' },
    { id: 's4', name: 'Review and consolidate', objective: 'Check the solution and summarize', agent: 'reviewer' },
  ],
  steps: [
    {
      id: 'st1',
      subtask: 's1',
      agent: 'tutor',
      instruction: 'Ask the learner what they already know about SQL GROUP BY and pandas DataFrames.',
      tool: null,
      depends_on: [],
      human_input: true,
    },
    {
      id: 'st2',
      subtask: 's2',
      agent: 'tutor',
      instruction: 'Retrieve the pandas documentation for DataFrame.groupby and resample.',
      tool: 'CodeDocsSearchTool',
      depends_on: ['st1'],
    },
    {
      id: 'st3',
      subtask: 's2',
      agent: 'tutor',
      instruction: 'Explain how GROUP BY in SQL maps to groupby in pandas, with a worked example.',
      tool: null,
      depends_on: ['st2'],
    },
    {
      id: 'st4',
      subtask: 's2',
      agent: 'tutor',
      instruction: 'Demonstrate grouping a sales DataFrame by month with a runnable Python snippet.',
      tool: 'CodeInterpreterTool',
      depends_on: ['st3'],
    },
    {
      id: 'st5',
      subtask: 's3',
      agent: 'coach',
      instruction: 'Write a practice exercise: sum revenue per month from a CSV export.',
      tool: 'FileWriterTool',
      depends_on: ['st4'],
    },
    {
      id: 'st6',
      subtask: 's3',
      agent: 'coach',
      instruction: 'Learner implements the solution and runs it.',
      tool: 'CodeInterpreterTool',
      depends_on: ['st5'],
      human_input: true,
    },
    { id: 'st7', subtask: 's3', agent: 'coach', instruction: 'Give a hint if the date column is not parsed as datetime.', tool: null, depends_on: ['st6'] },
    {
      id: 'st8',
      subtask: 's4',
      agent: 'reviewer',
      instruction: "Review the learner's code file and verify the monthly totals.",
      tool: 'FileReadTool',
      depends_on: ['st6'],
    },
    {
      id: 'st9',
      subtask: 's4',
      agent: 'reviewer',
      instruction: 'Give feedback on style and edge cases such as missing months.',
      tool: null,
      depends_on: ['st8', 'st7'],
    },
    {
      id: 'st10',
      subtask: 's4',
      agent: 'reviewer',
      instruction: 'Summarize the key takeaways for automating the weekly report.',
      tool: null,
      depends_on: ['st9'],
    },
  ],
  execution_order: ['st1', 'st2', 'st3', 'st4', 'st5', 'st6', 'st7', 'st8', 'st9', 'st10'],
  loops: [{ id: 'practice', nodes: ['st6', 'st7'], max_iterations: 3, exit_condition: 'monthly totals are correct' }],
};

export const EXAMPLE_SCORE_REQUEST = {
  groups: [
    {
      id: 'prompt-0',
      query: EXAMPLE_QUERY,
      profile: EXAMPLE_PROFILE,
      completions: [
        `\`\`\`json\n${JSON.stringify(EXAMPLE_PLAN)}\n\`\`\``,
        JSON.stringify({ ...EXAMPLE_PLAN, steps: EXAMPLE_PLAN.steps.map((s) => (s.id === 'st1' ? { ...s, depends_on: ['st10'] } : s)) }),
        'Here is the plan: {"agents": [',
      ],
    },
  ],
};
