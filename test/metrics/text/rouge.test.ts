import { readFileSync } from 'node:fs';
import t from 'tap';
import { rouge, rougeTokenize, type RougeScore } from '../../../src/metrics/text/rouge.js';

// Reference values: Google rouge-score with NLTK 3.8's Porter stemmer
// (test/fixtures/metric-reference/README.md). Tolerance 1e-12 absolute; observed deviation 0 (every
// value is one or two float divisions of integers, done in the same order).
const TOL = 1e-12;
const fixtures: {
  id: string;
  hypothesis: string;
  reference: string;
  results: { rouge_score: Record<'use_stemmer_true' | 'use_stemmer_false', Record<string, { precision: number; recall: number; fmeasure: number }>> };
}[] = JSON.parse(readFileSync(new URL('../../fixtures/metric-reference/fixtures.json', import.meta.url), 'utf8'));
const TYPES = ['rouge1', 'rouge2', 'rougeL', 'rougeLsum'] as const;
const close = (a: RougeScore, b: RougeScore) =>
  Math.abs(a.precision - b.precision) <= TOL && Math.abs(a.recall - b.recall) <= TOL && Math.abs(a.fmeasure - b.fmeasure) <= TOL;

t.test('every fixture pair, with and without stemming, all four types', async (t) => {
  for (const f of fixtures) {
    for (const stemmer of [false, true]) {
      const got = rouge(f.hypothesis, f.reference, { stemmer });
      const exp = f.results.rouge_score[stemmer ? 'use_stemmer_true' : 'use_stemmer_false'];
      for (const type of TYPES)
        t.ok(close(got[type], exp[type]!), `${f.id} stem=${stemmer} ${type}: ${JSON.stringify(got[type])} vs ${JSON.stringify(exp[type])}`);
    }
  }
});

t.test('tokenizer', async (t) => {
  t.same(rougeTokenize("The cat's 3.5 naïve İstanbul \u212Aelvin", false), ['the', 'cat', 's', '3', '5', 'na', 've', 'i', 'stanbul', 'kelvin']);
  t.same(rougeTokenize('running runs ran studies the cats', true), ['run', 'run', 'ran', 'studi', 'the', 'cat'], 'only tokens longer than 3 are stemmed');
  t.same(rougeTokenize('', true), []);
  t.same(rougeTokenize('?!… 😀 中文', false), []);
});

t.test('edge cases', async (t) => {
  const zero = { precision: 0, recall: 0, fmeasure: 0 };
  for (const [h, r] of [
    ['', ''],
    ['', 'a b'],
    ['a b', ''],
    ['?!', '...'],
    ['\r', '\n\n'],
  ]) {
    t.same(rouge(h!, r!, { stemmer: true }), { rouge1: zero, rouge2: zero, rougeL: zero, rougeLsum: zero }, JSON.stringify([h, r]));
  }
  const same = rouge('The cat sat.', 'the CAT sat', { stemmer: false });
  for (const type of TYPES) t.same(same[type], { precision: 1, recall: 1, fmeasure: 1 }, type);
  // precision over the hypothesis, recall over the reference
  t.same(rouge('a b', 'a b c d', { stemmer: false, types: ['rouge1'] }), { rouge1: { precision: 1, recall: 0.5, fmeasure: 2 / 3 } });
  // rouge2 with one token on a side: denominators are max(count, 1)
  t.same(rouge('a', 'a b', { stemmer: false, types: ['rouge2'] }).rouge2, zero);
  t.same(Object.keys(rouge('a', 'a', { stemmer: false, types: ['rouge3', 'rougeL'] })), ['rouge3', 'rougeL']);
  t.throws(() => rouge('a', 'a', { stemmer: false, types: ['rougeX' as 'rouge1'] }));
});

t.test('rougeLsum: union LCS over newline sentences with the double-count guard', async (t) => {
  // Reordered sentences: rougeL sees one sequence, rougeLsum matches sentence by sentence.
  const hyp = 'c d\na b';
  const ref = 'a b\nc d';
  t.equal(rouge(hyp, ref, { stemmer: false }).rougeL.recall, 0.5);
  t.equal(rouge(hyp, ref, { stemmer: false }).rougeLsum.recall, 1);
  // Reference token 'a' appears once but is in the LCS with both candidate sentences: counted once.
  const g = rouge('a\na', 'a', { stemmer: false, types: ['rougeLsum'] }).rougeLsum;
  t.same([g.precision, g.recall], [0.5, 1]);
  // '\r' is not a separator: 'a b\r\nc' has sentences 'a b\r' and 'c'.
  t.equal(rouge('a b\r\nc', 'a b c', { stemmer: false }).rougeLsum.recall, 1);
  // The backtrack's tie rule decides which LCS is taken (here 'a' at index 0 rather than 2).
  const tie = rouge('a b\nb a', 'a b a', { stemmer: false, types: ['rougeLsum'] }).rougeLsum;
  t.same([tie.precision, tie.recall], [0.75, 1]);
});

t.test('several references: rouge-score score_multi (per type, the reference with the best F)', async (t) => {
  const one = rouge('a b c', 'a x y', { stemmer: false });
  const two = rouge('a b c', 'a b z', { stemmer: false });
  const multi = rouge('a b c', ['a x y', 'a b z', 'a b z'], { stemmer: false });
  for (const type of TYPES) t.same(multi[type], one[type].fmeasure > two[type].fmeasure ? one[type] : two[type], type);
  t.throws(() => rouge('a', [], { stemmer: false }));
});

t.test('maxLcsCells refuses a huge LCS before doing it', async (t) => {
  t.throws(() => rouge('a b c', 'a b c', { stemmer: false, types: ['rougeL'], maxLcsCells: 8 }), RangeError);
  t.throws(() => rouge('a b c', 'a b c', { stemmer: false, types: ['rougeLsum'], maxLcsCells: 8 }), RangeError);
  t.ok(rouge('a b c', 'a b c', { stemmer: false, types: ['rouge1', 'rougeL'], maxLcsCells: 9 }));
});

// Its time on 10 MB is measured by bench/timing-claims.ts; a quadratic step would not end here either.
t.test('1 MB hypothesis: n-grams linear, LCS O(n·m) against a short reference', async (t) => {
  const words = ['the', 'cat', 'sat', 'on', 'mat', 'running', 'studies', 'happily', '3', 'x'];
  let s = 11;
  const next = () => (s = (s * 1103515245 + 12345) & 0x7fffffff);
  const text = (bytes: number) => {
    let out = '';
    for (let i = 0; out.length < bytes; i++) out += words[next() % words.length]! + (i % 20 === 19 ? '.\n' : ' ');
    return out;
  };
  const big = text(1_000_000);
  const n = rouge(big, text(1_000_000), { stemmer: true, types: ['rouge1', 'rouge2'] });
  t.ok(n.rouge1.fmeasure > 0.9);
  const l = rouge(big, text(300), { stemmer: true, types: ['rougeL', 'rougeLsum'] });
  t.ok(l.rougeL.recall > 0.9 && l.rougeLsum.recall > 0.9);
});
