// Step 1 of `npm run train:verifier`: every training text through the shipped sentence encoder.
// Reads ../shared/data (or TRAINING_DATA), writes training/build/{examples.json,vectors.f32}.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SentenceEncoder } from '../src/text/encoder.js';
import type { DialogueTurn, VerifyTask } from '../src/contracts/verify-turn.js';
import { fitContext, RESPONSE_FEATURE_NAMES, responseFeatures, taskText } from '../src/verify/format.js';
import { bridgeExamples, codingExamples, mathdialExamples, mrbenchExamples, type SourceExample } from './datasets.js';
import { genericQuestions, hardNegatives } from './hard-negatives.js';

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
  /** MRBench: candidates with another tutor's question appended, each labelled as candidate `of` (hard-negatives.ts). */
  hard_negatives?: Array<{ of: number; response: number; extra: number[]; text: string }>;
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
const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
const mrbenchHistories = new Map<string, string>();
const candidate = (e: SourceExample, c: SourceExample['candidates'][number]): Candidate => ({
  response: vec(c.text),
  extra: responseFeatures(c.text, e.task),
  target: c.target,
  ...(c.annotation && { pg: c.annotation.Providing_Guidance, act: c.annotation.Actionability, annotation: c.annotation }),
  length: c.text.length,
  text: c.text,
});
const add = (e: SourceExample, hard: Array<{ of: number; text: string }> = []) => {
  const task = vec(taskText(e.task));
  const context = vec(contextOf(e.context));
  examples.push({
    source: e.source,
    group: e.group,
    ...(e.pair !== undefined && { pair: e.pair, tutor: e.tutor }),
    task,
    context,
    ...(e.outcome !== undefined && { outcome: e.outcome }),
    candidates: e.candidates.map((c) => candidate(e, c)),
    ...(hard.length > 0 && { hard_negatives: hard.map((h) => ({ of: h.of, response: vec(h.text), extra: responseFeatures(h.text, e.task), text: h.text })) }),
  });
  if (e.source !== 'coding') check(e.source, { task: e.task, context: e.context, candidates: e.candidates.map((c) => c.text) });
};

const mathdial = mathdialExamples(DATA);
const mathdialQuestions = new Map([...mathdial.questions].map(([group, q]) => [group, norm(q).slice(0, 150)]));
for (const e of mathdial.examples) add(e);
const bridge = bridgeExamples(DATA);
const tutorTurns = (e: SourceExample) => e.context.flatMap((t) => (t.role === 'tutor' ? [t.text] : []));
const tails = genericQuestions([
  ...mathdial.examples.map((e) => ({ problem: `md:${e.task.description}`, turns: e.candidates.map((c) => c.text) })),
  ...bridge.map((e) => ({ problem: `br:${e.group}`, turns: [...tutorTurns(e), ...e.candidates.map((c) => c.text)] })),
]);
for (const e of mrbenchExamples(DATA)) {
  mrbenchHistories.set(e.group, norm(e.history));
  add(e, hardNegatives(e, tails));
}
for (const e of bridge) add(e);
// The coding tutor's turns (never trained on) are for a separate table.
for (const e of codingExamples(DATA)) add(e);

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
    hard_negative_tails: tails,
    examples,
  }),
);
const by = (s: string) => examples.filter((e) => e.source === s).length;
console.log(`${texts.length} texts embedded; examples: mathdial ${by('mathdial')}, mrbench ${by('mrbench')}, bridge ${by('bridge')}, coding ${by('coding')}`);
console.log(`${examples.reduce((n, e) => n + (e.hard_negatives?.length ?? 0), 0)} hard negatives, ${tails.length} tails`);
