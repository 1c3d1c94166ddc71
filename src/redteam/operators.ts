import type { Plan, Step } from '../contracts/plan.js';

// Edits a policy could learn to make to a plan, each a pure function of the plan, the material of its
// rollout group and a random source. The red-team composes them to hunt for plans the reward overpays.

/** What an edit may paste: the group's query and profile, the phase cue words, and text about something else. */
export interface Material {
  query: string;
  /** Profile text cut into pieces: tags, skills, sentences of the free text. */
  profileBits: string[];
}

export type Operator = (plan: Plan, m: Material, rand: () => number) => Plan | null;

const pick = <T>(xs: readonly T[], rand: () => number): T => xs[Math.floor(rand() * xs.length)]!;

// The paper's phase cues as a policy would paste them, one per phase and a few paraphrases.
const CUE_WORDS = [
  'Activate prior knowledge.',
  'Ask the learner what they already know.',
  'Demonstrate with a worked example.',
  'Explain and illustrate.',
  'Practice and apply.',
  'Learner implements it.',
  'Verify and review.',
  'Check and validate the solution.',
  'Summarize the key takeaways.',
  'Give feedback.',
];

// Sentences about anything but programming.
const OFF_TOPIC = [
  'Knead the dough for ten minutes until it is smooth and elastic.',
  'Water the tomato seedlings early in the morning before the sun is high.',
  'Book the train tickets and compare the hotel prices near the station.',
  'Sand the table top and apply a second coat of varnish.',
  'Practise the chord changes of the song slowly with a metronome.',
  'Plan the route of the hike and check the weather forecast for the weekend.',
  'Fold the laundry and sort the socks by colour.',
  'Whisk the eggs with sugar until the mixture turns pale.',
];

const words = (text: string) => text.split(/\s+/).filter((w) => w.length > 0);

function fragment(text: string, rand: () => number, min: number, max: number): string {
  const ws = words(text);
  if (ws.length <= min) return text;
  const len = min + Math.floor(rand() * (Math.min(max, ws.length) - min + 1));
  const at = Math.floor(rand() * (ws.length - len + 1));
  return ws.slice(at, at + len).join(' ');
}

function freshId(plan: Plan, rand: () => number): string {
  for (;;) {
    const id = `x${Math.floor(rand() * 1e6)}`;
    if (!plan.steps.some((s) => s.id === id)) return id;
  }
}

function withSteps(plan: Plan, steps: Step[], order: string[] = plan.execution_order): Plan {
  return { ...plan, steps, execution_order: order };
}

function editText(plan: Plan, rand: () => number, f: (instruction: string) => string): Plan | null {
  if (plan.steps.length === 0) return null;
  const i = Math.floor(rand() * plan.steps.length);
  return withSteps(
    plan,
    plan.steps.map((s, j) => (j === i ? { ...s, instruction: f(s.instruction) } : s)),
  );
}

/** A new step after a random one, depending on it, with `text`. */
function insertStep(plan: Plan, rand: () => number, text: string, humanInput: boolean): Plan | null {
  if (plan.steps.length === 0) return null;
  const after = pick(plan.steps, rand);
  const id = freshId(plan, rand);
  const step: Step = { id, subtask: after.subtask, agent: after.agent, instruction: text, tool: null, depends_on: [after.id], human_input: humanInput };
  const at = plan.steps.indexOf(after) + 1;
  const inOrder = plan.execution_order.indexOf(after.id);
  const order = [...plan.execution_order];
  order.splice(inOrder < 0 ? order.length : inOrder + 1, 0, id);
  return withSteps(plan, [...plan.steps.slice(0, at), step, ...plan.steps.slice(at)], order);
}

export const OPERATORS = {
  duplicate_step(plan, _m, rand) {
    if (plan.steps.length === 0) return null;
    const s = pick(plan.steps, rand);
    return insertStep(plan, rand, s.instruction, s.human_input === true);
  },
  insert_cue_step: (plan, _m, rand) => insertStep(plan, rand, pick(CUE_WORDS, rand), rand() < 0.5),
  insert_profile_step: (plan, m, rand) => (m.profileBits.length === 0 ? null : insertStep(plan, rand, pick(m.profileBits, rand), rand() < 0.5)),
  insert_query_step: (plan, m, rand) => insertStep(plan, rand, fragment(m.query, rand, 3, 12), rand() < 0.5),
  delete_step(plan, _m, rand) {
    if (plan.steps.length <= 1) return null;
    const gone = pick(plan.steps, rand).id;
    const steps = plan.steps.filter((s) => s.id !== gone).map((s) => ({ ...s, depends_on: s.depends_on.filter((d) => d !== gone) }));
    const loops = plan.loops?.map((l) => ({ ...l, nodes: l.nodes.filter((n) => n !== gone) })).filter((l) => l.nodes.length > 0);
    return {
      ...withSteps(
        plan,
        steps,
        plan.execution_order.filter((id) => id !== gone),
      ),
      ...(loops && { loops }),
    };
  },
  paste_profile: (plan, m, rand) =>
    m.profileBits.length === 0 ? null : editText(plan, rand, (t) => `${t}${pick([' ', ', ', '. '], rand)}${pick(m.profileBits, rand)}`),
  paste_tags(plan, m, rand) {
    if (m.profileBits.length === 0) return null;
    const tags = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => pick(m.profileBits, rand)).join(', ');
    return editText(plan, rand, (t) => `${t} ${tags}`);
  },
  paste_query: (plan, m, rand) => editText(plan, rand, (t) => `${t} ${fragment(m.query, rand, 2, 8)}`),
  add_cue: (plan, _m, rand) => editText(plan, rand, (t) => `${t} ${pick(CUE_WORDS, rand)}`),
  off_topic: (plan, _m, rand) => editText(plan, rand, () => pick(OFF_TOPIC, rand)),
  drop_agent(plan, _m, rand) {
    if (plan.agents.length < 2) return null;
    const gone = pick(plan.agents, rand);
    const heir = pick(
      plan.agents.filter((a) => a !== gone),
      rand,
    );
    const tools = [...new Set([...heir.tools, ...gone.tools])];
    return {
      ...plan,
      agents: plan.agents.filter((a) => a !== gone).map((a) => (a === heir ? { ...a, tools } : a)),
      subtasks: plan.subtasks.map((s) => (s.agent === gone.id ? { ...s, agent: heir.id } : s)),
      steps: plan.steps.map((s) => (s.agent === gone.id ? { ...s, agent: heir.id } : s)),
    };
  },
  drop_tool(plan, _m, rand) {
    const withTool = plan.steps.filter((s) => s.tool);
    if (withTool.length === 0) return null;
    const s = pick(withTool, rand);
    return withSteps(
      plan,
      plan.steps.map((x) => (x === s ? { ...x, tool: null } : x)),
    );
  },
  drop_edges: (plan) => ({
    ...withSteps(
      plan,
      plan.steps.map((s) => ({ ...s, depends_on: [] })),
    ),
    loops: [],
  }),
  chain(plan) {
    const ids = plan.execution_order.filter((id) => plan.steps.some((s) => s.id === id));
    return {
      ...withSteps(
        plan,
        plan.steps.map((s) => {
          const k = ids.indexOf(s.id);
          return { ...s, depends_on: k > 0 ? [ids[k - 1]!] : [] };
        }),
      ),
      loops: [],
    };
  },
} satisfies Record<string, Operator>;

export type OperatorName = keyof typeof OPERATORS;
export const OPERATOR_NAMES = Object.keys(OPERATORS) as OperatorName[];

/** The profile's text as a policy could paste it: each tag, skill and signal, and each sentence of the free text. */
export function profileBits(profile: unknown): string[] {
  if (typeof profile === 'string') return profile.split(/(?<=[.!?])\s+/).filter((s) => s.length > 0);
  if (Array.isArray(profile)) return profile.map(String);
  if (profile === null || typeof profile !== 'object') return [];
  const out: string[] = [];
  for (const value of Object.values(profile as Record<string, unknown>)) {
    if (typeof value === 'string') out.push(...value.split(/[,;]\s*|(?<=[.!?])\s+/).filter((s) => s.length > 0));
    else if (Array.isArray(value)) out.push(...value.map(String));
  }
  return out;
}
