// Step 5 of `npm run train:verifier`: the shipped verifier's scores on every training request, served twice:
// on the float encoder it was trained on (models/use-lite) and on the int8 copy its manifest names. Writes
// training/build/int8_scores.json, one row per example of examples.json (same order, texts checked), for
// int8_agreement.py.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SentenceEncoder } from '../src/text/encoder.js';
import { cosine } from '../src/text/similarity.js';
import { loadVerifier } from '../src/verify/verifier.js';
import { bridgeExamples, codingExamples, mathdialExamples, mrbenchExamples } from './datasets.js';

const DATA = process.env.TRAINING_DATA ?? fileURLToPath(new URL('../../shared/data', import.meta.url));
const BUILD = fileURLToPath(new URL('./build/', import.meta.url));
const MODEL = fileURLToPath(new URL('../models/verifier', import.meta.url));
const options = { cacheSize: 20_000, batchSize: 64 };

const float = await SentenceEncoder.fromDirectory(fileURLToPath(new URL('../models/use-lite', import.meta.url)), options);
const trained = await loadVerifier(MODEL, async () => float);
let int8: SentenceEncoder | undefined;
const served = await loadVerifier(MODEL, async (dir) => (int8 = await SentenceEncoder.fromDirectory(dir, options)));
if (!int8 || int8.manifest.name === float.manifest.name) throw new Error(`${MODEL}/manifest.json names the float encoder, not an int8 copy`);

const built = JSON.parse(readFileSync(`${BUILD}examples.json`, 'utf8')) as { examples: Array<{ group: string; candidates: Array<{ text: string }> }> };
const requests = [...mathdialExamples(DATA).examples, ...mrbenchExamples(DATA), ...bridgeExamples(DATA), ...codingExamples(DATA)];
if (requests.length !== built.examples.length) throw new Error(`${requests.length} requests against ${built.examples.length} examples in examples.json`);

const rows = [];
for (const [i, e] of requests.entries()) {
  const texts = e.candidates.map((c) => c.text);
  if (built.examples[i]!.group !== e.group || built.examples[i]!.candidates.some((c, j) => c.text !== texts[j])) {
    throw new Error(`example ${i} (${e.group}) is not the one features.ts wrote`);
  }
  const input = { task: e.task, context: e.context, candidates: texts };
  const [a, b] = [(await trained.verify(input)).candidates, (await served.verify(input)).candidates];
  const [fa, fb] = [await float.embed(texts), await int8.embed(texts)];
  rows.push({
    float: a.map((c) => c.score),
    int8: b.map((c) => c.score),
    float_dimensions: a.map((c) => Object.values(c.dimensions ?? {})),
    int8_dimensions: b.map((c) => Object.values(c.dimensions ?? {})),
    cosine: fa.map((v, j) => cosine(v, fb[j]!)),
  });
}
writeFileSync(`${BUILD}int8_scores.json`, JSON.stringify({ float_encoder: float.manifest.name, int8_encoder: int8.manifest.name, rows }));
console.log(`${rows.length} requests scored on ${float.manifest.name} and ${int8.manifest.name}`);
