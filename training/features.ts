// Step 1 of `npm run train:verifier`: every training text through the shipped sentence encoder.
// Reads ../shared/data (or TRAINING_DATA), writes training/build/{examples.json,vectors.f32}.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SentenceEncoder } from '../src/text/encoder.js';
import { contextText, responseFeatures, taskText } from '../src/verify/format.js';
import { mathdialRows, type DialogueTurn } from '../src/verify/mathdial.js';

const DATA = process.env.TRAINING_DATA ?? fileURLToPath(new URL('../../shared/data', import.meta.url));
const OUT = fileURLToPath(new URL('./build/', import.meta.url));
export const CONTEXT_CHARS = 600;

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
interface Candidate { response: number; extra: [number, number]; target: number; pg?: string; act?: string; length: number; text: string }
interface Example { source: 'mathdial' | 'mrbench' | 'bridge'; group: string; task: number; context: number; outcome?: 0 | 1; candidates: Candidate[] }
const examples: Example[] = [];
const label = (x: unknown) => (x === 'Yes' ? 1 : x === 'To some extent' ? 0.5 : 0);

// MathDial: one example per tutor turn, target v_t (Traver eqs. 1–2).
// Several MathDial dialogues share a question (qid), so a dialogue is identified by its line.
readFileSync(`${DATA}/mathdial/dialogues.jsonl`, 'utf8').split('\n').forEach((line, lineNo) => {
  if (!line.trim()) return;
  for (const row of mathdialRows(JSON.parse(line) as Record<string, unknown>)) {
    examples.push({
      source: 'mathdial',
      group: `md:${lineNo}:${row.dialogue}`,
      task: vec(taskText({ description: row.task })),
      context: vec(contextText(row.context, CONTEXT_CHARS).text),
      outcome: row.outcome,
      candidates: [{ response: vec(row.response), extra: responseFeatures(row.response), target: row.value, length: row.response.length, text: row.response }],
    });
  }
});

// MRBench: the candidates of one context, target = mean of Providing_Guidance and Actionability.
const parseHistory = (h: string): DialogueTurn[] =>
  h.split('\n').filter((l) => l.trim()).map((l) => ({ role: /^\s*tutor\s*:/i.test(l) ? 'tutor' : 'student', text: l.replace(/^\s*\w+\s*:\s*/, '') }));
for (const c of JSON.parse(readFileSync(`${DATA}/mrbench/MRBench_V1.json`, 'utf8')) as Array<Record<string, unknown>>) {
  const responses = c.anno_llm_responses as Record<string, { response: string; annotation: Record<string, string> }>;
  const history = parseHistory(String(c.conversation_history ?? ''));
  examples.push({
    source: 'mrbench',
    group: `mr:${String(c.conversation_id)}`,
    task: vec(taskText({ description: String(c.Topic ?? '') + '\n' + String(c.Ground_Truth_Solution ?? '').slice(0, 400) })),
    context: vec(contextText(history, CONTEXT_CHARS).text),
    candidates: Object.values(responses).map((r) => ({
      response: vec(r.response),
      extra: responseFeatures(r.response),
      target: (label(r.annotation.Providing_Guidance) + label(r.annotation.Actionability)) / 2,
      pg: r.annotation.Providing_Guidance,
      act: r.annotation.Actionability,
      length: r.response.length,
      text: r.response,
    })),
  });
}

// Bridge: the expert's revision over the novice's response.
for (const split of ['train', 'validation', 'test']) {
  for (const c of JSON.parse(readFileSync(`${DATA}/bridge/${split}.json`, 'utf8')) as Array<Record<string, unknown>>) {
    const turns = (c.c_h as Array<{ text: string; user: string }>).map((m) => ({ role: m.user === 'tutor' ? 'tutor' : 'student', text: m.text }) as DialogueTurn);
    const novice = (c.c_r as Array<{ text: string }>).map((m) => m.text).join(' ');
    const expert = (c.c_r_ as Array<{ text: string }>).map((m) => m.text).join(' ');
    if (!novice || !expert) continue;
    examples.push({
      source: 'bridge',
      group: `br:${String(c.c_id)}`,
      task: vec(String(c.lesson_topic ?? '')),
      context: vec(contextText(turns, CONTEXT_CHARS).text),
      candidates: [
        { response: vec(novice), extra: responseFeatures(novice), target: 0, length: novice.length, text: novice },
        { response: vec(expert), extra: responseFeatures(expert), target: 1, length: expert.length, text: expert },
      ],
    });
  }
}

const encoder = await SentenceEncoder.fromDirectory(fileURLToPath(new URL('../models/use-lite', import.meta.url)), { cacheSize: 1, batchSize: 64 });
const vectors = await encoder.embed(texts);
const flat = new Float32Array(texts.length * 512);
vectors.forEach((v, i) => flat.set(v, i * 512));
mkdirSync(OUT, { recursive: true });
writeFileSync(`${OUT}vectors.f32`, Buffer.from(flat.buffer));
writeFileSync(`${OUT}examples.json`, JSON.stringify({ dim: 512, texts: texts.length, examples }));
const by = (s: string) => examples.filter((e) => e.source === s).length;
console.log(`${texts.length} texts embedded; examples: mathdial ${by('mathdial')}, mrbench ${by('mrbench')}, bridge ${by('bridge')}`);
