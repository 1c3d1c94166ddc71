import type { DialogueTurn } from '../src/contracts/verify-turn.js';
import { turnValues } from './turn-values.js';

export interface TrainingRow {
  dialogue: string;
  /** 1-based index of the tutor turn, and the dialogue's number of tutor turns. */
  turn: number;
  turns: number;
  outcome: 0 | 1;
  /** v_t, Traver eqs. 1–2. */
  value: number;
  task: string;
  context: DialogueTurn[];
  response: string;
  /** MathDial's teacher move tag, e.g. "probing", when the turn has one. */
  move: string | null;
}

/**
 * MathDial's `self-correctness`: did the student reach the answer? "Yes, but I had to reveal the answer"
 * counts as a failure (o = 0): the tutor, not the student, produced the solution, which is the behaviour
 * a turn verifier for tutoring should not reward.
 */
export function mathdialOutcome(selfCorrectness: unknown): 0 | 1 | null {
  if (selfCorrectness === 'Yes') return 1;
  if (selfCorrectness === 'No' || selfCorrectness === 'Yes, but I had to reveal the answer') return 0;
  return null;
}

const MOVE = /^\(([a-z_ -]+)\)\s*/i;

/** "Teacher: (probing)…|EOM|Student: …" → turns. Lines not spoken by "Teacher" are the student's (MathDial names some students). */
export function parseMathdialConversation(conversation: string): Array<DialogueTurn & { move: string | null }> {
  return conversation
    .split('|EOM|')
    .map((raw) => raw.trim())
    .filter((raw) => raw.length > 0)
    .map((raw) => {
      const colon = raw.indexOf(':');
      const speaker = colon > 0 && colon < 40 ? raw.slice(0, colon).trim() : '';
      let text = colon > 0 && colon < 40 ? raw.slice(colon + 1).trim() : raw;
      if (speaker.toLowerCase() !== 'teacher') return { role: 'student' as const, text, move: null };
      const move = MOVE.exec(text);
      if (move) text = text.slice(move[0].length);
      return { role: 'tutor' as const, text, move: move ? move[1]!.toLowerCase() : null };
    });
}

/** One training row per tutor turn of an outcome-labelled MathDial record; [] when the outcome is missing. */
export function mathdialRows(record: { qid?: unknown; question?: unknown; conversation?: unknown; 'self-correctness'?: unknown }): TrainingRow[] {
  const outcome = mathdialOutcome(record['self-correctness']);
  if (outcome === null || typeof record.conversation !== 'string') return [];
  const turns = parseMathdialConversation(record.conversation);
  const tutorTurns = turns.filter((t) => t.role === 'tutor').length;
  const values = turnValues(outcome, tutorTurns);
  const rows: TrainingRow[] = [];
  let t = 0;
  turns.forEach((turn, i) => {
    if (turn.role !== 'tutor') return;
    rows.push({
      dialogue: String(record.qid ?? ''),
      turn: t + 1,
      turns: tutorTurns,
      outcome,
      value: values[t]!,
      task: typeof record.question === 'string' ? record.question : '',
      context: turns.slice(0, i).map(({ role, text }) => ({ role, text })),
      response: turn.text,
      move: turn.move,
    });
    t++;
  });
  return rows;
}
