// The optional LLM judge of the guarded reward (docs/rewards.md §10.7): a reader that knows what a lesson on
// this question should contain, for what no word count can tell — whether the steps are true, in a sensible
// order, and teach this question to this learner. The rubric's anchors are ours.
import type { Plan } from '../../contracts/plan.js';
import type { AxisVector } from '../../grpo/compose.js';
import type { Profile } from '../../contracts/profile.js';
import { parseScore } from '../../metrics/judge/rubric.js';

/** Changes whenever the prompt or the scale does: a verdict is cached and pinned under it. */
export const PLAN_JUDGE_VERSION = 'plan-judge@1';

export interface PlanJudgeInput {
  query: string | null | undefined;
  profile: Profile | undefined;
  reference?: string | readonly string[];
  plan: Plan;
}

const SYSTEM = [
  'You review lesson plans that a planner wrote for one learner and one question.',
  'Rate from 1 to 5 how much the plan would teach this learner to answer this question:',
  '1 = teaches nothing about this question: filler, a list of keywords, the question restated, invented terms, or a plan for another question;',
  '2 = mostly generic steps with a little real content;',
  '3 = correct and on topic but thin, or missing the explanation or the practice the question needs;',
  '4 = correct, specific content in a sensible order, with small gaps;',
  '5 = correct, specific and complete for this question, fitted to this learner.',
  'Judge what the steps say, not how they are worded or how many there are. Mentions of the learner earn nothing unless the teaching uses them.',
  'Answer with the integer on the first line, then one sentence naming what decided it.',
].join(' ');

/** A plan as the judge reads it: its agents, then each step with its agent, tool and what it waits for. */
function planText(plan: Plan): string {
  const roles = new Map(plan.agents.map((a) => [a.id, a.role]));
  const lines = plan.steps.map((s) => {
    const after = s.depends_on.length > 0 ? ` (after ${s.depends_on.join(', ')})` : '';
    const tool = s.tool ? `, using ${s.tool}` : '';
    const output = s.expected_output ? ` → ${s.expected_output}` : '';
    return `${s.id} [${roles.get(s.agent) ?? s.agent}${tool}]${after}: ${s.instruction}${output}`;
  });
  return lines.join('\n');
}

const profileText = (p: Profile | undefined): string => (p === undefined ? '(none given)' : typeof p === 'string' ? p : JSON.stringify(p));

/** What the judge is shown of one plan: the question, the learner, the reference if any, and the plan. */
export function planJudgePrompt(input: PlanJudgeInput): string {
  const reference = typeof input.reference === 'string' ? input.reference : input.reference?.join('\n');
  return [
    `Question: ${input.query ?? '(none given)'}`,
    `Learner: ${profileText(input.profile)}`,
    reference ? `A reference answer the plan should cover:\n${reference}` : '',
    `Plan:\n${planText(input.plan)}`,
    'Score (1-5):',
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** The chat messages that ask for the verdict on a prompt. */
export const planJudgeMessages = (prompt: string) => [
  { role: 'system', content: SYSTEM },
  { role: 'user', content: prompt },
];

export interface PlanVerdict {
  /** The judge's rating, 1–5. */
  score: number;
  /** J = (score − 1) / 4, what the guarded reward is multiplied by. */
  factor: number;
  /** The judge's own words after the score. */
  reason: string;
  /** The model that judged. */
  model: string;
}

// A reason longer than this is cut: the rubric asks for one sentence.
const REASON_CHARS = 500;

/** The verdict in `model`'s reply, or null when the reply holds no rating 1–5. */
export function readVerdict(reply: string, model: string): PlanVerdict | null {
  const score = parseScore(reply);
  if (score === null) return null;
  const rest = reply.replace(/^[^\n]*\n?/, '').trim();
  return { score, factor: judgeFactor(score), reason: (rest || reply.trim()).slice(0, REASON_CHARS), model };
}

// §10.7: J = (s − 1) / 4, s ∈ {1,…,5}
export const judgeFactor = (score: number): number => (score - 1) / 4;

// §10.7: R^g_k ← J · R^g_k — the judge only takes credit away, and never grants what the guarded reward did not.
export const judgedRaw = (raw: AxisVector, v: PlanVerdict): AxisVector => ({
  struct: v.factor * raw.struct,
  pers: v.factor * raw.pers,
  ped: v.factor * raw.ped,
});
