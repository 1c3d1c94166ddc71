import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { SentenceEncoder } from '../../src/text/encoder.js';
import { cosine } from '../../src/text/similarity.js';
import { useLite } from '../support/encoder.js';

// models/use-lite-int8 (scripts/use-lite/quantize.py): USE-lite with int8 MatMuls, which the default verifier embeds with.
const dir = (name: string) => fileURLToPath(new URL(`../../models/${name}`, import.meta.url));
const int8 = () => SentenceEncoder.fromDirectory(dir('use-lite-int8'), { cacheSize: 1, batchSize: 32 });
// The encoder's parity sentences (test/fixtures/README.md): tutoring turns, code, edge cases, 200-word texts.
const texts = (JSON.parse(readFileSync(new URL('../fixtures/sentences.json', import.meta.url), 'utf8')) as Array<{ text: string }>).map((x) => x.text);

t.test('the int8 copy has the float encoder’s tokenizer and settings, under its own name', async (t) => {
  t.ok(readFileSync(`${dir('use-lite-int8')}/tokenizer.json`).equals(readFileSync(`${dir('use-lite')}/tokenizer.json`)));
  const manifest = (name: string) => JSON.parse(readFileSync(`${dir(name)}/manifest.json`, 'utf8')) as Record<string, unknown>;
  const { name, version, ...rest } = manifest('use-lite-int8');
  const { name: floatName, version: floatVersion, ...floatRest } = manifest('use-lite');
  t.same(rest, floatRest);
  t.equal(name, `${floatName}-int8`);
  t.not(version, floatVersion);
});

t.test('int8 embeddings stay within cosine 0.995 of the float encoder’s, and are not the same numbers', async (t) => {
  t.equal(texts.length, 252);
  const [a, b] = [await (await useLite()).embed(texts), await (await int8()).embed(texts)];
  const cos = a.map((v, i) => cosine(v, b[i]!));
  t.ok(Math.min(...cos) > 0.995, `min cosine ${Math.min(...cos).toFixed(5)}`);
  t.ok(Math.max(...a.map((v, i) => Math.max(...v.map((x, k) => Math.abs(x - b[i]![k]!))))) > 1e-4, 'the int8 model is not the float one');
});

t.test('a text embeds the same alone as in a batch with texts of other lengths (activations quantized per token)', async (t) => {
  const batch = await (await int8()).embed(texts);
  // A second encoder, so that no text comes from the batch's cache.
  const single = await int8();
  let worst = 0;
  for (const [i, text] of texts.entries()) {
    if (i % 4) continue;
    const [alone] = await single.embed([text]);
    worst = Math.max(worst, ...alone!.map((x, k) => Math.abs(x - batch[i]![k]!)));
  }
  t.ok(worst < 1e-6, `max |alone − batched| = ${worst.toExponential(2)}`);
});
