import type { Plan, Step } from '../../src/contracts/plan.js';
import { mulberry32 } from '../../src/common/rng.js';

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
      {
        id: 'a',
        subtask: 'learn',
        agent: 'tutor',
        instruction: 'Ask the learner what they already know about Python loops.',
        tool: null,
        depends_on: [],
        human_input: true,
      },
      { id: 'b', subtask: 'learn', agent: 'tutor', instruction: 'Demonstrate a list comprehension.', tool: 'CodeInterpreterTool', depends_on: ['a'] },
      {
        id: 'c',
        subtask: 'practice',
        agent: 'coach',
        instruction: 'Learner implements a filter with a comprehension.',
        tool: 'FileWriterTool',
        depends_on: ['b'],
        human_input: true,
      },
      { id: 'd', subtask: 'practice', agent: 'coach', instruction: 'Verify the output of the program.', tool: 'CodeInterpreterTool', depends_on: ['c'] },
    ],
    execution_order: ['a', 'b', 'c', 'd'],
  };
}

export function withStep(plan: Plan, id: string, patch: Partial<Step>): Plan {
  return { ...plan, steps: plan.steps.map((s) => (s.id === id ? { ...s, ...patch } : s)) };
}

/**
 * A plan of `n` steps whose dependency graph is dense (each step depends on most earlier ones), varied by
 * `seed`: two of them make graph edit distance search long, which is what the concurrency tests need.
 */
export function densePlan(n: number, seed: number): Plan {
  const ids = Array.from({ length: n }, (_, i) => `s${i}`);
  return {
    agents: [
      { id: 'tutor', role: 'Python tutor', tools: ['CodeDocsSearchTool', 'CodeInterpreterTool'] },
      { id: 'coach', role: 'Practice coach', tools: ['CodeInterpreterTool', 'FileWriterTool'] },
    ],
    subtasks: [{ id: 'learn', name: 'Learn loops' }],
    steps: ids.map((id, i) => ({
      id,
      subtask: 'learn',
      agent: (i + seed) % 2 === 0 ? 'tutor' : 'coach',
      instruction: `Step ${i}: explain and practise part ${(i * 7 + seed) % n} of the loop example.`,
      tool: (i + seed) % 3 === 0 ? 'CodeInterpreterTool' : null,
      depends_on: ids.slice(0, i).filter((_, j) => (i * j + seed) % 4 !== 0),
    })),
    execution_order: ids,
  };
}

/**
 * A plan of `n` steps whose dependencies are drawn at random, each earlier step with probability three quarters (as dense as densePlan)
 * (seeded): unlike densePlan's four structures, no two seeds share a shape, so graph edit distance between
 * two of them at 15 steps cannot be finished by its search in any budget a request allows.
 */
export function randomDensePlan(n: number, seed: number): Plan {
  const next = mulberry32(seed);
  const plan = densePlan(n, seed);
  return { ...plan, steps: plan.steps.map((s, i) => ({ ...s, depends_on: plan.execution_order.slice(0, i).filter(() => next() < 0.75) })) };
}
