// WikiHowAgent's conversation-level metrics (teacher–learner dialogues over a tutorial), computed without
// any model: deterministic and versioned.

export interface Message {
  role: 'teacher' | 'learner';
  text: string;
}

/** Tutor/student (Traver, MathDial) are the same two parts as teacher/learner. */
export function normalizeRole(role: string): Message['role'] | null {
  const r = role.toLowerCase();
  if (r === 'teacher' || r === 'tutor') return 'teacher';
  if (r === 'learner' || r === 'student') return 'learner';
  return null;
}

/** Question: the share of learner utterances that ask a question (contain "?"); null without any. */
export function questionRate(messages: readonly Message[]): number | null {
  const learner = messages.filter((m) => m.role === 'learner');
  return learner.length === 0 ? null : learner.filter((m) => m.text.includes('?')).length / learner.length;
}

/**
 * Completion: the conversation ends with the `finished` token, case-insensitive: the last message's last
 * word is "finished" (trailing punctuation and markup such as "FINISHED." or "**Finished**" allowed).
 */
export function completed(messages: readonly Message[]): boolean {
  const last = messages.at(-1)?.text ?? '';
  return /\bfinished[^\p{L}\p{N}]*$/iu.test(last.trim());
}

/** Lowercased word tokens (letters, digits, apostrophes inside words). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:'[\p{L}\p{N}]+)*/gu) ?? [];
}

/**
 * Diversity: distinct 2-grams / all 2-grams over the responses (the teacher's utterances, the system
 * under evaluation), bigrams taken within each utterance; null when there is no bigram.
 */
export function diversity(messages: readonly Message[]): { value: number | null; distinct: number; total: number } {
  const seen = new Set<string>();
  let total = 0;
  for (const m of messages) {
    if (m.role !== 'teacher') continue;
    const w = words(m.text);
    for (let i = 0; i + 1 < w.length; i++) {
      seen.add(`${w[i]}\u0000${w[i + 1]}`);
      total++;
    }
  }
  return { value: total === 0 ? null : seen.size / total, distinct: seen.size, total };
}
