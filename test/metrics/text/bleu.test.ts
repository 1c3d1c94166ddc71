import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { corpusBleu, sentenceBleu, tokenize13a, type BleuScore, type SmoothMethod } from '../../../src/metrics/text/bleu.js';

// Reference values: sacrebleu 2.6.0 (test/fixtures/metric-reference/README.md). Tolerance: integer
// fields exact; score, precisions and bp within 1e-9 absolute (observed max deviation ~1e-13, from
// Math.log/exp vs C libm and float summation).
const TOL = 1e-9;
const dir = new URL('../../fixtures/metric-reference/', import.meta.url);
const load = (f: string) => JSON.parse(readFileSync(new URL(f, dir), 'utf8'));
const fixtures: { id: string; hypothesis: string; reference: string; results: { sacrebleu: { sentence_bleu: Record<string, BleuScore> } } }[] =
  load('fixtures.json');
const METHODS: SmoothMethod[] = ['exp', 'floor', 'add-k', 'none'];

function sameBleu(t: Test, got: BleuScore, exp: BleuScore, msg: string): void {
  t.same([got.counts, got.totals, got.sys_len, got.ref_len], [exp.counts, exp.totals, exp.sys_len, exp.ref_len], `${msg}: counts/totals/lengths`);
  const close = (a: number, b: number) => Math.abs(a - b) <= TOL;
  t.ok(close(got.score, exp.score), `${msg}: score ${got.score} vs ${exp.score}`);
  t.ok(close(got.bp, exp.bp), `${msg}: bp ${got.bp} vs ${exp.bp}`);
  t.ok(got.precisions.length === exp.precisions.length && got.precisions.every((p, i) => close(p, exp.precisions[i]!)), `${msg}: precisions`);
}

t.test('sentence BLEU: every fixture pair, every smoothing method', async (t) => {
  t.equal(fixtures.length, 100);
  for (const f of fixtures) {
    for (const m of METHODS) sameBleu(t, sentenceBleu(f.hypothesis, [f.reference], { smoothMethod: m }), f.results.sacrebleu.sentence_bleu[m]!, `${f.id} ${m}`);
  }
  // exp is the default
  const f = fixtures[0]!;
  t.same(sentenceBleu(f.hypothesis, [f.reference]), sentenceBleu(f.hypothesis, [f.reference], { smoothMethod: 'exp' }));
});

t.test('corpus BLEU over the visible set', async (t) => {
  const c = load('corpus_bleu.json');
  const byId = new Map(fixtures.map((f) => [f.id, f]));
  const hyps = c.ids_in_order.map((id: string) => byId.get(id)!.hypothesis);
  const refs = c.ids_in_order.map((id: string) => byId.get(id)!.reference);
  const got = corpusBleu(hyps, [refs]);
  sameBleu(t, got, c.result, 'corpus');
  t.ok(Math.abs(got.score - 30.011670886243845) <= TOL);
});

t.test('sacrebleu-extra: 13a stress strings, several references, lowercase, two streams', async (t) => {
  const x = load('sacrebleu-extra.json');
  for (const c of x.cases) {
    t.equal(tokenize13a(c.h), c.tok, `13a ${JSON.stringify(c.h)}`);
    for (const m of METHODS) sameBleu(t, sentenceBleu(c.h, c.refs, { smoothMethod: m, lowercase: c.lc }), c.res[m], `${JSON.stringify(c.h)} ${m}`);
  }
  for (const [key, exp] of Object.entries<BleuScore>(x.corpus.res)) {
    const eff = key.endsWith('True');
    sameBleu(
      t,
      corpusBleu(x.corpus.hyps, x.corpus.streams, { smoothMethod: key.replace(/True|False$/, '') as SmoothMethod, useEffectiveOrder: eff }),
      exp,
      `corpus ${key}`,
    );
  }
});

t.test('13a tokenizer rules', async (t) => {
  t.equal(tokenize13a('Hello, world. 3,650 x 0.1 = 365.0!'), 'Hello , world . 3,650 x 0.1 = 365.0 !');
  t.equal(tokenize13a('co-\noperate\nnext line'), 'cooperate next line', '-\\n joins, \\n is a space');
  t.equal(tokenize13a('a <skipped> b &quot;q&quot; &amp;lt; &gt;'), 'a b " q " < >', "sacrebleu's order unescapes &amp;lt; twice");
  t.equal(tokenize13a("don't 5-3 x-y (a+b)/2"), "don't 5 - 3 x-y ( a + b ) / 2");
  t.equal(tokenize13a('a\u00a0b\u3000c\u2003d\u0085e\ufefff'), 'a b c d e\ufefff', 'Python whitespace set: NBSP, ideographic, em, NEL split; BOM does not');
  t.equal(tokenize13a('naïve café – ½ 😀.'), 'naïve café – ½ 😀 .');
  t.equal(tokenize13a(''), '');
});

t.test('edge cases', async (t) => {
  const empty = sentenceBleu('', ['']);
  t.same(empty, { score: 0, counts: [0, 0, 0, 0], totals: [0, 0, 0, 0], precisions: [0, 0, 0, 0], bp: 1, sys_len: 0, ref_len: 0 });
  t.equal(sentenceBleu('', ['a b']).bp, 0, 'empty hypothesis: bp 0');
  t.equal(sentenceBleu('?!', ['...']).score, 0, 'punctuation only, nothing matches');
  t.equal(sentenceBleu('a b c d', ['a b c d']).score, 100.00000000000004, 'identical: bp * exp(mean log) is not exactly 100');
  // effective order: a 2-token exact match is 100 at sentence level, 0 at corpus level.
  t.ok(Math.abs(sentenceBleu('a b', ['a b']).score - 100) < 1e-9);
  t.equal(corpusBleu(['a b'], [['a b']]).score, 0);
  t.equal(sentenceBleu('a b', ['a b'], { useEffectiveOrder: false }).score, 0);
  // none: a zero precision drives the score to 0; floor/add-k keep it positive.
  t.equal(sentenceBleu('a b c x', ['a b c d']).counts.join(), '3,2,1,0');
  t.equal(sentenceBleu('a b c x', ['a b c d'], { smoothMethod: 'none' }).score, 0);
  t.same(sentenceBleu('a b c x', ['a b c d'], { smoothMethod: 'add-k' }).counts, [3, 3, 2, 1], 'add-k increments counts in place');
  t.same(sentenceBleu('a b c x', ['a b c d'], { smoothMethod: 'add-k', smoothValue: 2 }).totals, [4, 5, 4, 3]);
  // several references: closest length (shorter on a tie), clipping by the max count over references
  t.equal(sentenceBleu('a a a', ['a', 'a a x x']).ref_len, 4, 'closest reference length');
  t.equal(sentenceBleu('a a a', ['a', 'a a x x x']).ref_len, 1, 'on a tie (2 vs 2) the shorter one');
  t.equal(sentenceBleu('a a a', ['a', 'a a x x x']).counts[0], 2, 'unigram clipped by the max count over references');
  t.end();
});

t.test('trailing whitespace: Python rstrip before 13a', async (t) => {
  t.equal(tokenize13a('a-\n'), 'a', 'the bare tokenizer joins a trailing -\\n');
  t.same(sentenceBleu('a-\n', ['a-']).counts, [1, 0, 0, 0], "BLEU rstrips first, so the token stays 'a-'");
  t.equal(sentenceBleu('a b \u3000\u0085 ', ['a b']).score, sentenceBleu('a b', ['a b']).score);
});

t.test('argument checks', async (t) => {
  t.throws(() => sentenceBleu('a', []));
  t.throws(() => corpusBleu(['a', 'b'], [['a']]));
  t.throws(() => sentenceBleu('a', ['a'], { smoothMethod: 'bogus' as SmoothMethod }));
});

// Its time on 10 MB, linear, is measured by bench/timing-claims.ts; a quadratic step would not end here either.
t.test('1 MB input: a score, no blow-up', async (t) => {
  const words = ['the', 'cat', 'sat', 'on', 'mat', '3.5', '1,000', 'x-1', '(a+b)', "don't", '&amp;', 'naïve', 'end.'];
  let s = 7;
  const next = () => (s = (s * 1103515245 + 12345) & 0x7fffffff);
  const text = (bytes: number) => {
    const out: string[] = [];
    for (let n = 0; n < bytes; ) {
      const w = words[next() % words.length]!;
      out.push(w);
      n += w.length + 1;
    }
    return out.join(next() % 50 === 0 ? '\n' : ' ');
  };
  const r = sentenceBleu(text(1_000_000), [text(1_000_000)]);
  t.ok(r.score > 0 && r.score <= 100);
});
