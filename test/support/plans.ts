import type { Plan, Step } from '../../src/contracts/plan.js';

/** A small valid plan covering all four Merrill phases; tests mutate copies of it. */
export function basePlan(): Plan {
  return {
    agents: [
      { id: 'tutor', role: 'Python tutor', tools: ['CodeDocsSearchTool', 'CodeInterpreterTool'] },
      { id: 'coach', role: 'Practice coach', tools: ['CodeInterpreterTool', 'FileWriterTool'] },
    ],
    subtasks: [
      { id: 'learn', name: 'Learn list comprehensions' },
      { id: 'practice', name: 'Practice' },
    ],
    steps: [
      { id: 'a', subtask: 'learn', agent: 'tutor', instruction: 'Ask the learner what they already know about Python loops.', tool: null, depends_on: [], human_input: true },
      { id: 'b', subtask: 'learn', agent: 'tutor', instruction: 'Demonstrate a list comprehension.', tool: 'CodeInterpreterTool', depends_on: ['a'] },
      { id: 'c', subtask: 'practice', agent: 'coach', instruction: 'Learner implements a filter with a comprehension.', tool: 'FileWriterTool', depends_on: ['b'], human_input: true },
      { id: 'd', subtask: 'practice', agent: 'coach', instruction: 'Verify the output of the program.', tool: 'CodeInterpreterTool', depends_on: ['c'] },
    ],
    execution_order: ['a', 'b', 'c', 'd'],
  };
}

export function withStep(plan: Plan, id: string, patch: Partial<Step>): Plan {
  return { ...plan, steps: plan.steps.map((s) => (s.id === id ? { ...s, ...patch } : s)) };
}
