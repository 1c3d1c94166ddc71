import type { DialogueTurn } from './mathdial.js';

// The verifier's inputs in the order of Traver's template: the target task (its description, then the
// reference knowledge: dependency paths and key solution steps), the conversation context, the response.
export interface VerifyTask {
  description: string;
  dependencies?: string[];
  solution_steps?: string[];
  code_context?: string;
}

export function taskText(task: VerifyTask): string {
  const parts = [task.description];
  if (task.code_context) parts.push(task.code_context);
  if (task.dependencies?.length) parts.push(`Dependencies: ${task.dependencies.join('; ')}`);
  if (task.solution_steps?.length) parts.push(`Steps: ${task.solution_steps.join(' ')}`);
  return parts.join('\n');
}

/**
 * The conversation, truncated from the left: the latest turns are kept whole while they fit in
 * `maxChars`, and the oldest kept turn is cut at its start. Returns the text and whether anything was cut.
 */
export function contextText(turns: readonly DialogueTurn[], maxChars: number): { text: string; truncated: boolean } {
  const lines = turns.map((t) => `${t.role === 'tutor' ? 'Tutor' : 'Student'}: ${t.text}`);
  let text = '';
  for (let i = lines.length - 1; i >= 0; i--) {
    const next = text === '' ? lines[i]! : `${lines[i]}\n${text}`;
    if (next.length > maxChars) return { text: next.slice(next.length - maxChars), truncated: true };
    text = next;
  }
  return { text, truncated: false };
}

/** Hand features of a response the embedding misses: it asks a question; its length (log characters). */
export function responseFeatures(response: string): [number, number] {
  return [response.includes('?') ? 1 : 0, Math.log1p(response.length)];
}
