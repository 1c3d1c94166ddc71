// Step 1 of `npm run train:verifier`: every training text through the shipped sentence encoder.
// Reads ../shared/data (or TRAINING_DATA), writes training/build/{examples.json,vectors.f32}.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SentenceEncoder } from '../src/text/encoder.js';
import type { DialogueTurn, VerifyTask } from '../src/contracts/verify-turn.js';
import { fitContext, RESPONSE_FEATURE_NAMES, responseFeatures, taskText } from '../src/verify/format.js';
import { mathdialRows } from './mathdial.js';

const DATA = process.env.TRAINING_DATA ?? fileURLToPath(new URL('../../shared/data', import.meta.url));
const OUT = fileURLToPath(new URL('./build/', import.meta.url));
export const CONTEXT_CHARS = 600;
const encoder = await SentenceEncoder.fromDirectory(fileURLToPath(new URL('../models/use-lite', import.meta.url)), { cacheSize: 1, batchSize: 64 });
// The dialogue as the server builds it (src/verify/embedding-head.ts).
const contextOf = (turns: readonly DialogueTurn[]) => fitContext(turns, CONTEXT_CHARS, (text) => !encoder.encode(text).truncated).text;

const texts: string[] = [];
const index = new Map<string, number>();
const vec = (text: string) => {
  let i = index.get(text);
  if (i === undefined) {
    i = texts.length;
    texts.push(text);
    index.set(text, i);
  }
  return i;
};
interface Candidate {
  response: number;
  extra: number[];
  target: number;
  pg?: string;
  act?: string;
  /** MRBench: the eight human labels of the candidate, as annotated. */
  annotation?: Record<string, string>;
  length: number;
  text: string;
}
interface Example {
  source: 'mathdial' | 'mrbench' | 'bridge' | 'coding';
  group: string;
  task: number;
  context: number;
  outcome?: 0 | 1;
  candidates: Candidate[];
  linked?: string[];
  /** Coding tutor: which human-evaluation pair and which tutor model the dialogue comes from. */
  pair?: number;
  tutor?: string;
}
const examples: Example[] = [];
// A few requests as a client would send them, by example index: train.py records the shipped model's
// scores for them in models/verifier/expected.json, and CI serves them and must get the same scores.
interface Request {
  task: VerifyTask;
  context: DialogueTurn[];
  candidates: string[];
}
const servingChecks: { example: number; request: Request }[] = [];
const check = (source: Example['source'], request: Request) => {
  if (servingChecks.filter((c) => examples[c.example]!.source === source).length < 2 && request.context.length > 0) {
    servingChecks.push({ example: examples.length - 1, request });
  }
};
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

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
const mathdialQuestions = new Map<string, string>();
const mrbenchHistories = new Map<string, string>();

// MathDial: one example per tutor turn, target v_t (Traver eqs. 1–2).
// Several MathDial dialogues share a question (qid), so a dialogue is identified by its line.
readFileSync(`${DATA}/mathdial/dialogues.jsonl`, 'utf8')
  .split('\n')
  .forEach((line, lineNo) => {
    if (!line.trim()) return;
    const record = JSON.parse(line) as Record<string, unknown>;
    if (typeof record.question === 'string') mathdialQuestions.set(`md:${lineNo}:${String(record.qid ?? '')}`, norm(record.question).slice(0, 150));
    for (const row of mathdialRows(record)) {
      const task: VerifyTask = { description: row.task, solution_steps: steps(record.ground_truth) };
      examples.push({
        source: 'mathdial',
        group: `md:${lineNo}:${row.dialogue}`,
        task: vec(taskText(task)),
        context: vec(contextOf(row.context)),
        outcome: row.outcome,
        candidates: [
          { response: vec(row.response), extra: responseFeatures(row.response, task), target: row.value, length: row.response.length, text: row.response },
        ],
      });
      check('mathdial', { task, context: row.context, candidates: [row.response] });
    }
  });

// MRBench: the candidates of one context, target = mean of Providing_Guidance and Actionability.
const parseHistory = (h: string): DialogueTurn[] =>
  h
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => ({ role: /^\s*tutor\s*:/i.test(l) ? 'tutor' : 'student', text: l.replace(/^\s*\w+\s*:\s*/, '') }));
for (const c of JSON.parse(readFileSync(`${DATA}/mrbench/MRBench_V1.json`, 'utf8')) as Array<Record<string, unknown>>) {
  const responses = c.anno_llm_responses as Record<string, { response: string; annotation: Record<string, string> }>;
  const history = parseHistory(String(c.conversation_history ?? ''));
  const task: VerifyTask = { description: String(c.Topic ?? ''), solution_steps: steps(c.Ground_Truth_Solution) };
  mrbenchHistories.set(`mr:${String(c.conversation_id)}`, norm(String(c.conversation_history ?? '')));
  examples.push({
    source: 'mrbench',
    group: `mr:${String(c.conversation_id)}`,
    task: vec(taskText(task)),
    context: vec(contextOf(history)),
    candidates: Object.values(responses).map((r) => ({
      response: vec(r.response),
      extra: responseFeatures(r.response, task),
      target: (label(r.annotation.Providing_Guidance) + label(r.annotation.Actionability)) / 2,
      pg: r.annotation.Providing_Guidance,
      act: r.annotation.Actionability,
      annotation: r.annotation,
      length: r.response.length,
      text: r.response,
    })),
  });
  check('mrbench', { task, context: history, candidates: Object.values(responses).map((r) => r.response) });
}

// Bridge: the expert's revision over the novice's response.
for (const split of ['train', 'validation', 'test']) {
  for (const c of JSON.parse(readFileSync(`${DATA}/bridge/${split}.json`, 'utf8')) as Array<Record<string, unknown>>) {
    const turns = (c.c_h as Array<{ text: string; user: string }>).map(
      (m) => ({ role: m.user === 'tutor' ? 'tutor' : 'student', text: m.text }) as DialogueTurn,
    );
    const novice = (c.c_r as Array<{ text: string }>).map((m) => m.text).join(' ');
    const expert = (c.c_r_ as Array<{ text: string }>).map((m) => m.text).join(' ');
    if (!novice || !expert) continue;
    const task: VerifyTask = { description: String(c.lesson_topic ?? '') };
    examples.push({
      source: 'bridge',
      group: `br:${String(c.c_id)}`,
      task: vec(taskText(task)),
      context: vec(contextOf(turns)),
      candidates: [
        { response: vec(novice), extra: responseFeatures(novice, task), target: 0, length: novice.length, text: novice },
        { response: vec(expert), extra: responseFeatures(expert, task), target: 1, length: expert.length, text: expert },
      ],
    });
    check('bridge', { task, context: turns, candidates: [novice, expert] });
  }
}

// Coding tutor (Traver's human evaluation): every tutor turn of the 6 dialogues, for a separate table; never
// trained on. Each pair is two tutor models teaching the same task.
for (const c of JSON.parse(readFileSync(`${DATA}/coding-tutor/example_eval_pairs.json`, 'utf8')) as Array<Record<string, unknown>>) {
  const task: VerifyTask = {
    description: String(c.task ?? ''),
    dependencies: steps(c.dependency_all),
    solution_steps: steps(c.reference_steps),
  };
  for (const key of ['model_1', 'model_2']) {
    const side = c[key] as { name: string; conversation: Array<Record<string, string>> };
    const turns: DialogueTurn[] = side.conversation.map((m) => ('tutor' in m ? { role: 'tutor', text: m.tutor! } : { role: 'student', text: m.student ?? '' }));
    turns.forEach((turn, i) => {
      if (turn.role !== 'tutor') return;
      examples.push({
        source: 'coding',
        group: `ct:${String(c.eval_idx)}:${side.name}`,
        pair: Number(c.eval_idx),
        tutor: side.name,
        task: vec(taskText(task)),
        context: vec(contextOf(turns.slice(0, i))),
        candidates: [{ response: vec(turn.text), extra: responseFeatures(turn.text, task), target: 0, length: turn.text.length, text: turn.text }],
      });
    });
  }
}

// MRBench contexts are MathDial and Bridge conversations: `linked` lists the MathDial dialogues and Bridge
// pairs of the same conversation (a response text in common, or for MathDial the same question), which
// train.py leaves out of training whenever that MRBench context is held out.
const groupsOfResponse = new Map<number, Set<string>>();
for (const e of examples) {
  if (e.source === 'mrbench') continue;
  for (const c of e.candidates) {
    if (!groupsOfResponse.has(c.response)) groupsOfResponse.set(c.response, new Set());
    groupsOfResponse.get(c.response)!.add(e.group);
  }
}
for (const e of examples) {
  if (e.source !== 'mrbench') continue;
  const linked = new Set<string>();
  for (const c of e.candidates) for (const g of groupsOfResponse.get(c.response) ?? []) linked.add(g);
  const history = mrbenchHistories.get(e.group) ?? '';
  for (const [g, q] of mathdialQuestions) if (q && history.includes(q)) linked.add(g);
  e.linked = [...linked].sort();
}

const vectors = await encoder.embed(texts);
const flat = new Float32Array(texts.length * 512);
vectors.forEach((v, i) => {
  flat.set(v, i * 512);
});
mkdirSync(OUT, { recursive: true });
writeFileSync(`${OUT}vectors.f32`, Buffer.from(flat.buffer));
writeFileSync(
  `${OUT}examples.json`,
  JSON.stringify({
    dim: 512,
    texts: texts.length,
    // Token ids as the service's encoder makes them (cut at max_tokens): what the fine-tuned encoder trains on.
    ids: texts.map((t) => encoder.encode(t).ids),
    strings: texts,
    extra_names: RESPONSE_FEATURE_NAMES,
    context_chars: CONTEXT_CHARS,
    serving_checks: servingChecks,
    examples,
  }),
);
const by = (s: string) => examples.filter((e) => e.source === s).length;
console.log(`${texts.length} texts embedded; examples: mathdial ${by('mathdial')}, mrbench ${by('mrbench')}, bridge ${by('bridge')}, coding ${by('coding')}`);
