import { mulberry32 } from '../src/common/rng.js';
import type { Plan, Step } from '../src/contracts/plan.js';

// Realistic MAP-PPL-sized plans (3 agents, 4 subtasks, 10 steps) with the defects GRPO samples show:
// cycles, tools outside the agent's kit, dangling dependencies and truncated output.

const TOPICS = [
  'pandas groupby',
  'React hooks',
  'SQL joins',
  'Python decorators',
  'async/await in JavaScript',
  'Java streams',
  'Docker volumes',
  'recursion in C++',
];
const INSTRUCTIONS: Record<string, string[]> = {
  activation: [
    'Ask the learner what they already know about {t}.',
    'Probe prior knowledge of {t} with two short questions.',
    'Gauge the learner experience level with {t}.',
  ],
  demonstration: [
    'Retrieve the official documentation for {t}.',
    'Explain {t} with a worked example tied to the learner background.',
    'Demonstrate {t} with a runnable snippet.',
  ],
  application: [
    'Write a practice exercise on {t} for the learner.',
    'Learner implements a small program using {t}.',
    'Learner applies {t} to their own project code.',
  ],
  integration: [
    'Review the learner solution and verify it handles edge cases.',
    'Run the tests and check the output of the {t} exercise.',
    'Validate the learner code and explain any failures.',
  ],
  feedback: ['Give feedback on the solution and hint at improvements.'],
  consolidate: ['Summarize the key takeaways about {t} and suggest next steps.'],
};
const PHASE_SEQ = [
  'activation',
  'demonstration',
  'demonstration',
  'application',
  'application',
  'integration',
  'feedback',
  'application',
  'integration',
  'consolidate',
];

export interface Defects {
  cycle?: boolean;
  badTool?: boolean;
  dangling?: boolean;
}

// Words that make each sentence of a plan its own (`ownWording`): a model words every sample differently,
// while the templates above repeat each sentence across plans, and the scorer keeps the reading of a
// repeated text.
const OWN_WORDS = (
  'apple river stone cloud maple orange silver forest window garden candle mirror rocket bridge copper velvet ' +
  'meadow harbor lantern pepper marble falcon thunder willow crystal ember glacier hollow island jungle kettle ' +
  'lemon magnet nectar orbit pebble quartz raven saddle timber amber vessel walnut canyon zephyr anchor basil cedar dune'
).split(' ');

export function realisticPlan(rand: () => number, defects: Defects = {}, ownWording = false): Plan {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const own = (text: string) => (ownWording ? text.replace(/\.?$/, () => `, as in the ${pick(OWN_WORDS)} ${pick(OWN_WORDS)} ${pick(OWN_WORDS)} case.`) : text);
  const topic = pick(TOPICS);
  const agents = [
    {
      id: 'tutor',
      role: `${topic} tutor`,
      goal: own(`Teach ${topic} to the learner`),
      backstory: 'Patient senior engineer and mentor.',
      tools: ['CodeDocsSearchTool', 'CodeInterpreterTool', 'FirecrawlSearchTool'],
    },
    { id: 'coach', role: 'Practice coach', goal: 'Design and run hands-on exercises', tools: ['CodeInterpreterTool', 'FileWriterTool'] },
    { id: 'reviewer', role: 'Code reviewer', goal: 'Check solutions and consolidate learning', tools: ['FileReadTool', 'CodeInterpreterTool'] },
  ];
  const subtasks = [
    { id: 'sub1', name: 'Assess background', objective: own(`Find what the learner knows about ${topic}`), agent: 'tutor' },
    { id: 'sub2', name: 'Explain and demonstrate', objective: own(`Show ${topic} in action`), agent: 'tutor' },
    { id: 'sub3', name: 'Guided practice', objective: own(`Learner applies ${topic}`), agent: 'coach' },
    { id: 'sub4', name: 'Review and consolidate', objective: 'Verify and summarize', agent: 'reviewer' },
  ];
  const steps: Step[] = PHASE_SEQ.map((phase, i) => {
    const agent = i < 3 ? 'tutor' : i < 6 ? 'coach' : 'reviewer';
    const subtask = i === 0 ? 'sub1' : i < 3 ? 'sub2' : i < 6 ? 'sub3' : 'sub4';
    const tools = agents.find((a) => a.id === agent)!.tools;
    const deps = i === 0 ? [] : rand() < 0.3 && i > 1 ? [`step${i}`, `step${i - 1}`] : [`step${i}`];
    return {
      id: `step${i + 1}`,
      subtask,
      agent,
      instruction: own(pick(INSTRUCTIONS[phase]!).replace('{t}', topic)),
      expected_output: rand() < 0.6 ? own(`A short ${phase} artefact about ${topic}.`) : undefined,
      tool: rand() < 0.5 ? pick(tools) : null,
      depends_on: deps,
      human_input: phase === 'activation' || (phase === 'application' && rand() < 0.5),
    };
  });
  if (defects.cycle) steps[2]!.depends_on.push('step7');
  if (defects.badTool) steps[4]!.tool = 'FileReadTool';
  if (defects.dangling) steps[8]!.depends_on.push('step42');
  return {
    agents,
    subtasks,
    steps,
    execution_order: steps.map((s) => s.id),
    loops: [{ id: 'practice', nodes: ['step4', 'step5'], max_iterations: 3, exit_condition: 'exercise passes' }],
  };
}

/** Model-style text: half bare JSON, half a ```json fence with prose; a few truncated. */
export function asCompletion(plan: Plan, rand: () => number): string {
  const json = JSON.stringify(plan, null, rand() < 0.5 ? 2 : undefined);
  if (rand() < 0.03) return json.slice(0, Math.floor(json.length / 2));
  return rand() < 0.5 ? json : `Here is a personalized plan for the learner.\n\n\`\`\`json\n${json}\n\`\`\`\n\nIt starts from what the learner knows.`;
}

export const BENCH_PROFILES = [
  { about_me: 'Data analyst learning Python', tags: ['python', 'pandas'], skills: ['SQL', 'Excel'], goals: 'Automate reports' },
  { about_me: 'Frontend developer', tags: 'javascript reactjs', skills: 'CSS, HTML', experience: '3 years of web development' },
  'Second-year CS student who knows Java and some C++; wants to learn concurrency and Docker.',
  { tags: ['c++', 'recursion'], skills: ['algorithms'], signals: ['visual explanations'] },
];

/** `ownWording`: every sentence of every plan is its own (OWN_WORDS), as a model's samples are. */
export function benchBatch(groups: number, perGroup: number, seed = 7, ownWording = false) {
  const rand = mulberry32(seed);
  return {
    groups: Array.from({ length: groups }, (_, g) => ({
      id: `prompt-${g}`,
      query: 'How do I get started?',
      profile: BENCH_PROFILES[g % BENCH_PROFILES.length]!,
      completions: Array.from({ length: perGroup }, () => {
        const r = rand();
        return asCompletion(realisticPlan(rand, { cycle: r < 0.1, badTool: r >= 0.1 && r < 0.2, dangling: r >= 0.2 && r < 0.25 }, ownWording), rand);
      }),
    })),
  };
}

/** The JSON payload of every completion of a batch: the same bytes the scorer has to parse. */
export const payloadsOf = (b: ReturnType<typeof benchBatch>): string[] =>
  b.groups.flatMap((g) => g.completions).map((c) => c.slice(c.indexOf('{'), c.lastIndexOf('}') + 1));

/** JSON.parse of each payload: the floor the benches hold scoring against. */
export function parseAll(payloads: readonly string[]): void {
  for (const p of payloads) {
    try {
      JSON.parse(p);
    } catch {
      // truncated completions fail here as they do in the scorer
    }
  }
}

/** JSON.parse of a /score-plan body and of every completion in it: all a scorer must read. */
export function parseBody(text: string): void {
  for (const g of (JSON.parse(text) as { groups: { completions: string[] }[] }).groups) parseAll(g.completions);
}
