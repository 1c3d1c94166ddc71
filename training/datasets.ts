// The verifier's training sources in ../shared/data, read into requests as a client would send them
// (task, dialogue, candidates), for features.ts (training) and int8-scores.ts (serving check).
import { readFileSync } from 'node:fs';
import type { DialogueTurn, VerifyTask } from '../src/contracts/verify-turn.js';
import { mathdialRows } from './mathdial.js';

interface SourceCandidate {
  text: string;
  target: number;
  /** MRBench: the eight human labels of the candidate, as annotated. */
  annotation?: Record<string, string>;
}
export interface SourceExample {
  source: 'mathdial' | 'mrbench' | 'bridge' | 'coding';
  group: string;
  task: VerifyTask;
  context: DialogueTurn[];
  candidates: SourceCandidate[];
  outcome?: 0 | 1;
  /** Coding tutor: which human-evaluation pair and which tutor model the dialogue comes from. */
  pair?: number;
  tutor?: string;
}

const label = (x: unknown) => (x === 'Yes' ? 1 : x === 'To some extent' ? 0.5 : 0);

// The task as the server receives it ({ description, solution_steps? }): a worked solution (MathDial's
// ground_truth, MRBench's Ground_Truth_Solution) goes in solution_steps, one step per non-empty line, so
// that responseFeatures can tell whether a response states the final answer (the solution's last number).
const steps = (solution: unknown): string[] | undefined => {
  const lines = String(solution ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l);
  return lines.length ? lines : undefined;
};

const json = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Array<Record<string, unknown>>;

/**
 * MathDial: one example per tutor turn, target v_t (Traver eqs. 1–2); and every dialogue's question by
 * its group (a dialogue with no usable outcome has a question but no example).
 */
export function mathdialExamples(data: string): { examples: SourceExample[]; questions: Map<string, string> } {
  const examples: SourceExample[] = [];
  const questions = new Map<string, string>();
  // Several MathDial dialogues share a question (qid), so a dialogue is identified by its line.
  readFileSync(`${data}/mathdial/dialogues.jsonl`, 'utf8')
    .split('\n')
    .forEach((line, lineNo) => {
      if (!line.trim()) return;
      const record = JSON.parse(line) as Record<string, unknown>;
      if (typeof record.question === 'string') questions.set(`md:${lineNo}:${String(record.qid ?? '')}`, record.question);
      for (const row of mathdialRows(record)) {
        examples.push({
          source: 'mathdial',
          group: `md:${lineNo}:${row.dialogue}`,
          task: { description: row.task, solution_steps: steps(record.ground_truth) },
          context: row.context,
          candidates: [{ text: row.response, target: row.value }],
          outcome: row.outcome,
        });
      }
    });
  return { examples, questions };
}

const parseHistory = (h: string): DialogueTurn[] =>
  h
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => ({ role: /^\s*tutor\s*:/i.test(l) ? 'tutor' : 'student', text: l.replace(/^\s*\w+\s*:\s*/, '') }));

/** MRBench: the candidates of one context, target = mean of Providing_Guidance and Actionability. */
export function mrbenchExamples(data: string): Array<SourceExample & { history: string }> {
  return json(`${data}/mrbench/MRBench_V1.json`).map((c) => {
    const responses = c.anno_llm_responses as Record<string, { response: string; annotation: Record<string, string> }>;
    return {
      source: 'mrbench',
      group: `mr:${String(c.conversation_id)}`,
      task: { description: String(c.Topic ?? ''), solution_steps: steps(c.Ground_Truth_Solution) },
      context: parseHistory(String(c.conversation_history ?? '')),
      candidates: Object.values(responses).map((r) => ({
        text: r.response,
        target: (label(r.annotation.Providing_Guidance) + label(r.annotation.Actionability)) / 2,
        annotation: r.annotation,
      })),
      history: String(c.conversation_history ?? ''),
    };
  });
}

/** Bridge: the novice's response (target 0) and the expert's revision of it (1). */
export function bridgeExamples(data: string): SourceExample[] {
  const out: SourceExample[] = [];
  for (const split of ['train', 'validation', 'test']) {
    for (const c of json(`${data}/bridge/${split}.json`)) {
      const turns = (c.c_h as Array<{ text: string; user: string }>).map(
        (m) => ({ role: m.user === 'tutor' ? 'tutor' : 'student', text: m.text }) as DialogueTurn,
      );
      const novice = (c.c_r as Array<{ text: string }>).map((m) => m.text).join(' ');
      const expert = (c.c_r_ as Array<{ text: string }>).map((m) => m.text).join(' ');
      if (!novice || !expert) continue;
      out.push({
        source: 'bridge',
        group: `br:${String(c.c_id)}`,
        task: { description: String(c.lesson_topic ?? '') },
        context: turns,
        candidates: [
          { text: novice, target: 0 },
          { text: expert, target: 1 },
        ],
      });
    }
  }
  return out;
}

/**
 * Coding tutor (Traver's human evaluation): every tutor turn of the 6 dialogues, each with the dialogue
 * before it. Each pair is two tutor models teaching the same task; there is no label (target 0).
 */
export function codingExamples(data: string): SourceExample[] {
  const out: SourceExample[] = [];
  for (const c of json(`${data}/coding-tutor/example_eval_pairs.json`)) {
    const task: VerifyTask = { description: String(c.task ?? ''), dependencies: steps(c.dependency_all), solution_steps: steps(c.reference_steps) };
    for (const key of ['model_1', 'model_2']) {
      const side = c[key] as { name: string; conversation: Array<Record<string, string>> };
      const turns: DialogueTurn[] = side.conversation.map((m) =>
        'tutor' in m ? { role: 'tutor', text: m.tutor! } : { role: 'student', text: m.student ?? '' },
      );
      turns.forEach((turn, i) => {
        if (turn.role !== 'tutor') return;
        out.push({
          source: 'coding',
          group: `ct:${String(c.eval_idx)}:${side.name}`,
          pair: Number(c.eval_idx),
          tutor: side.name,
          task,
          context: turns.slice(0, i),
          candidates: [{ text: turn.text, target: 0 }],
        });
      });
    }
  }
  return out;
}
