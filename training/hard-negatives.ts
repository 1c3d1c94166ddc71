// Hard negatives for the verifier (issue 75): an MRBench candidate that a rater judged worse than another of
// its context, with a short question of another tutor appended, keeps the candidate's labels. Appending
// "Can you see why?" to a wrong hint does not make it right; trained without these, the score paid for
// the form of a question and a wrong hint with one appended outranked the correct Socratic question.
import type { SourceExample } from './datasets.js';

const words = (s: string) => s.toLowerCase().match(/[a-z']+/g) ?? [];
const sentences = (text: string) => text.split(/(?<=[.!?])\s+/).map((s) => s.trim());
// The bench's own tail (bench/code-situations.ts): held out of training, so the bench measures transfer.
const BENCH_TAILS = new Set(['can you see why']);

/**
 * Short questions (2–8 words, no number) that tutors asked in at least two conversations about different
 * problems: what recurs across problems says nothing of one ("is that your final answer?", "does that
 * step make sense?"). `tutorTurns`: each conversation's problem or id, and its tutor turns. Each question
 * once, as first written, sorted.
 */
export function genericQuestions(tutorTurns: Iterable<{ problem: string; turns: readonly string[] }>): string[] {
  const seen = new Map<string, { text: string; problems: Set<string> }>();
  for (const { problem, turns } of tutorTurns) {
    for (const turn of turns) {
      for (const s of sentences(turn)) {
        const ws = words(s);
        if (!s.endsWith('?') || ws.length < 2 || ws.length > 8 || /[\d$]/.test(s)) continue;
        const key = ws.join(' ');
        if (BENCH_TAILS.has(key)) continue;
        const entry = seen.get(key) ?? { text: s.replace(/\s+/g, ' '), problems: new Set<string>() };
        entry.problems.add(problem);
        seen.set(key, entry);
      }
    }
  }
  return [...seen.values()]
    .filter((e) => e.problems.size >= 2)
    .map((e) => e.text.charAt(0).toUpperCase() + e.text.slice(1))
    .sort();
}

const rank = (c: SourceExample['candidates'][number]) => c.target;

/**
 * The hard negatives of one MRBench context: each candidate that another of the context outranks (by
 * Providing_Guidance + Actionability) and that does not already end in a question, with one of `tails`
 * appended (picked by the candidate's text, so a run gives the same). `of` is the candidate's index.
 */
export function hardNegatives(e: SourceExample, tails: readonly string[]): Array<{ of: number; text: string }> {
  const best = Math.max(...e.candidates.map(rank));
  return e.candidates.flatMap((c, of) => {
    const text = c.text.trim();
    if (rank(c) >= best || text.endsWith('?')) return [];
    return [{ of, text: `${text} ${tails[hash(text) % tails.length]!}` }];
  });
}

// FNV-1a over the UTF-16 code units: a fixed pick per text.
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
