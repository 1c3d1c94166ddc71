import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { SentenceEncoder } from '../../src/text/encoder.js';
import { cosine, cosineMatrix } from '../../src/text/similarity.js';
import { useLite } from '../support/encoder.js';

t.test('USE-lite: 512-d unit vectors that put paraphrases close and unrelated text far', async (t) => {
  const enc = await useLite();
  const [guitar, strum, market] = await enc.embed(['a man is playing a guitar', 'someone is strumming an instrument', 'the stock market fell sharply']);
  t.equal(guitar!.length, 512);
  t.ok(Math.abs(cosine(guitar!, guitar!) - 1) < 1e-6);
  let norm = 0;
  for (const x of guitar!) norm += x * x;
  t.ok(Math.abs(norm - 1) < 1e-5, 'L2-normalized');
  t.ok(cosine(guitar!, strum!) > 0.5, `paraphrase ${cosine(guitar!, strum!)}`);
  t.ok(cosine(guitar!, market!) < 0.2, `unrelated ${cosine(guitar!, market!)}`);
  t.same(
    cosineMatrix([guitar!], [guitar!, market!]).map((r) => r.map((x) => Math.round(x * 1e4) / 1e4)),
    [[1, Math.round(cosine(guitar!, market!) * 1e4) / 1e4]],
  );
});

t.test('USE-lite: cache, order, duplicates and batches', async (t) => {
  const enc = await useLite(8);
  const texts = Array.from({ length: 70 }, (_, i) => `sentence number ${i % 35}`); // duplicates, three batches of 32
  const a = await enc.embed(texts);
  t.equal(a.length, 70);
  t.equal(a[0], a[35], 'a duplicate gets the same vector');
  t.ok(cosine(a[1]!, a[2]!) < 0.9999, 'different texts, different vectors');
  const again = await enc.embed(['sentence number 34']);
  t.equal(again[0], a[69], 'cache hit returns the cached vector');
  const alone = (await (await useLite()).embed(['sentence number 3']))[0]!;
  t.ok(cosine(alone, a[3]!) > 0.99999, 'batched and alone agree');
});

t.test('USE-lite: token states, truncation and bad input', async (t) => {
  const enc = await useLite();
  const [states] = await enc.tokenStates(['Recursion calls itself.']);
  t.equal(states!.states.length, states!.ids.length);
  t.equal(states!.states[0]!.length, 512);
  t.same(states!.tokens, ['▁Re', 'cur', 'sion', '▁calls', '▁itself', '.']);
  t.equal(states!.truncated, false);
  const huge = 'word '.repeat(200_000); // 1 MB
  const [long] = await enc.tokenStates([huge]);
  t.equal(long!.ids.length, 128);
  t.equal(long!.truncated, true, 'a 1 MB text is cut (how fast: bench/timing-claims.ts)');
  const [empty] = await enc.embed(['']);
  t.equal(empty!.length, 512);
  t.ok(empty!.every((x) => Number.isFinite(x)));
  await t.rejects(enc.embed(['ok', 42 as unknown as string]), /texts\[1\] is number, not a string/);
  await t.rejects(enc.embed([null as unknown as string]), /texts\[0\] is null/);
  const many = await enc.embed(Array.from({ length: 2000 }, (_, i) => `t${i}`));
  t.equal(many.length, 2000);
});

t.test('bring your own: a Hugging Face-style directory, mean pooling over the mask', async (t) => {
  const dir = fileURLToPath(new URL('../fixtures/tiny-encoder', import.meta.url));
  const w = JSON.parse(readFileSync(`${dir}/weights.json`, 'utf8')) as { vocab: string[]; E: number[][]; T: number[][]; W: number[][] };
  const enc = await SentenceEncoder.fromDirectory(dir, { cacheSize: 10, batchSize: 2 });
  t.match(enc.manifest, { pooling: 'mean', add_special_tokens: true, max_tokens: 16 });
  const text = 'The tutor explains recursion, codes';
  // [CLS] the tutor explains recursion , code ##s [SEP]
  const tokens = ['[CLS]', 'the', 'tutor', 'explains', 'recursion', ',', 'code', '##s', '[SEP]'];
  const ids = tokens.map((x) => w.vocab.indexOf(x));
  t.same(enc.encode(text).ids, ids);
  const hidden = ids.map((id) => {
    const s = w.E[id]!.map((x, k) => x + w.T[0]![k]!);
    return w.W[0]!.map((_, j) => Math.tanh(s.reduce((acc, x, k) => acc + x * w.W[k]![j]!, 0)));
  });
  const mean = hidden[0]!.map((_, k) => hidden.reduce((acc, h) => acc + h[k]!, 0) / hidden.length);
  const n = Math.sqrt(mean.reduce((a, x) => a + x * x, 0));
  const [got, other, again] = await enc.embed([text, 'the student asks a question ?', text]);
  t.equal(got!.length, 8);
  got!.forEach((x, k) => {
    t.ok(Math.abs(x - mean[k]! / n) < 1e-5, `dim ${k}`);
  });
  t.ok(cosine(got!, other!) < 0.9999);
  t.equal(again, got);
  // Batches of 2 with different lengths: padding must not leak into the mean.
  const [alone] = await (await SentenceEncoder.fromDirectory(dir, { cacheSize: 10, batchSize: 1 })).embed(['the student asks a question ?']);
  t.ok(cosine(alone!, other!) > 0.99999);
  const [long] = await enc.tokenStates(['the tutor '.repeat(20)]);
  t.same([long!.ids.length, long!.truncated], [16, true]);
});

t.test('commuting pieces are ordered longest first; other pieces keep their order', async (t) => {
  const { longestFirstTies } = await import('../../src/text/encoder.js');
  const pieces = new Map([
    [1, 'M'],
    [2, 'm'],
    [3, 'mm'],
    [4, 'mmm'],
    [5, 'ab'],
    [6, 'abab'],
    [7, 'x'],
  ]);
  t.same(longestFirstTies([1, 2, 3, 7], pieces), [1, 3, 2, 7]);
  t.same(longestFirstTies([2, 3, 4, 2], pieces), [4, 3, 2, 2]);
  t.same(longestFirstTies([5, 6, 7, 5], pieces), [6, 5, 7, 5]);
  t.same(longestFirstTies([7, 1, 5], pieces), [7, 1, 5]);
  t.same(longestFirstTies([], pieces), []);
});
