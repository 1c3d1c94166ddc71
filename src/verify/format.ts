import type { DialogueTurn, VerifyTask } from '../contracts/verify-turn.js';

// The verifier's inputs in the order of Traver's template: the target task (its description, then the
// reference knowledge: dependency paths and key solution steps), the conversation context, the response.
/** The reference knowledge: "Dependencies: a; b" and "Steps: …" lines, those the task has. */
function knowledgeText(task: VerifyTask): string {
  const lines: string[] = [];
  if (task.dependencies?.length) lines.push(`Dependencies: ${task.dependencies.join('; ')}`);
  if (task.solution_steps?.length) lines.push(`Steps: ${task.solution_steps.join(' ')}`);
  return lines.join('\n');
}

export function taskText(task: VerifyTask): string {
  const parts = [task.description];
  if (task.code_context) parts.push(task.code_context);
  const knowledge = knowledgeText(task);
  if (knowledge) parts.push(knowledge);
  return parts.join('\n');
}

/** Traver's template fields: the task, the reference knowledge, the dialogue as speaker-tagged lines. */
export function traverFields(task: VerifyTask, context: readonly DialogueTurn[]): Record<string, string> {
  return {
    task: task.code_context ? `${task.description}\n${task.code_context}` : task.description,
    knowledge: knowledgeText(task),
    context: context.map(turnLine).join('\n'),
  };
}

/** A template with its {task}, {knowledge}, {context} and {response} placeholders filled in. */
export function fill(template: string, fields: Record<string, string>): string {
  return template.replace(/\{(task|knowledge|context|response)\}/g, (_, k: string) => fields[k] ?? '');
}

/** One dialogue turn as every verifier input writes it: "Tutor: …" or "Student: …". */
export function turnLine(turn: DialogueTurn): string {
  return `${turn.role === 'tutor' ? 'Tutor' : 'Student'}: ${turn.text}`;
}

/**
 * The conversation, truncated from the left: the latest turns are kept whole while they fit in
 * `maxChars`, and the oldest kept turn is cut at its start. Returns the text and whether anything was cut.
 */
export function contextText(turns: readonly DialogueTurn[], maxChars: number): { text: string; truncated: boolean } {
  const lines = turns.map(turnLine);
  let text = '';
  for (let i = lines.length - 1; i >= 0; i--) {
    const next = text === '' ? lines[i]! : `${lines[i]}\n${text}`;
    if (next.length > maxChars) return { text: next.slice(next.length - maxChars), truncated: true };
    text = next;
  }
  return { text, truncated: false };
}

/**
 * The latest dialogue that fits both `maxChars` (the window the verifier was trained with) and the
 * encoder (`fits`, e.g. not cut at its token limit): the window shrinks by a fifth until it fits.
 * Training and serving both build the context with this function.
 */
export function fitContext(turns: readonly DialogueTurn[], maxChars: number, fits: (text: string) => boolean): { text: string; truncated: boolean } {
  let fitted = contextText(turns, maxChars);
  let cut = fitted.truncated;
  while (fitted.text.length > 0 && !fits(fitted.text)) {
    fitted = contextText(turns, Math.floor(fitted.text.length * 0.8));
    cut = true;
  }
  return { text: fitted.text, truncated: cut };
}

/**
 * The names of `responseFeatures`' values, in order (the verifier's `extra` input columns). Nothing counts
 * question marks: with them the head paid for the form of a question, and a wrong hint with "Can you see
 * why?" appended outranked the correct one (head 2.3.0 dropped them).
 */
export const RESPONSE_FEATURE_NAMES = [
  'log_chars',
  'addresses_student',
  'encouragement',
  'invites_action',
  'shows_calculation',
  'reveals_final_answer',
] as const;

const ENCOURAGEMENT =
  /\b(great|good (job|work|try|attempt|start|effort|thinking)|well done|nice|excellent|awesome|you'?re on the right track|keep (it )?up)\b/i;
const INVITES_ACTION = /\b(let'?s|try|can you|could you|would you|think about|what (do|would|if)|how (do|would|did|many|much)|why)\b/i;
const CALCULATION = /\d\s*[-+*/×÷x=]\s*\$?\d/;

/** Numbers written in a text, thousands separators removed ("10,000" → 10000). */
function numbersIn(text: string): number[] {
  return (text.replace(/(\d),(?=\d{3}\b)/g, '$1').match(/\d+(?:\.\d+)?/g) ?? []).map(Number);
}

/** The task's final answer: the last number of its last solution step that has one; null without steps. */
export function finalAnswer(task?: VerifyTask): number | null {
  const steps = task?.solution_steps ?? [];
  for (let i = steps.length - 1; i >= 0; i--) {
    const nums = numbersIn(steps[i]!);
    if (nums.length) return nums[nums.length - 1]!;
  }
  return null;
}

/**
 * Hand features of a response the embedding misses, in the order of RESPONSE_FEATURE_NAMES: its length
 * (log characters); it addresses the student ("you"/"your", 0/1); it encourages (0/1); it invites an action ("let's",
 * "try", "can you", "what/how/why…", 0/1); it shows a calculation (digit operator digit, 0/1); it states the
 * task's final answer — the last number of the last solution step of `task.solution_steps` — (0/1, 0 when
 * the task has no solution steps).
 */
export function responseFeatures(response: string, task?: VerifyTask): number[] {
  const answer = finalAnswer(task);
  return [
    Math.log1p(response.length),
    /\byou(r|'re|'ve|'ll)?\b/i.test(response) ? 1 : 0,
    ENCOURAGEMENT.test(response) ? 1 : 0,
    INVITES_ACTION.test(response) ? 1 : 0,
    CALCULATION.test(response) ? 1 : 0,
    answer !== null && numbersIn(response).some((n) => Math.abs(n - answer) < 1e-9) ? 1 : 0,
  ];
}
