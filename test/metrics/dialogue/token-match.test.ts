import t from 'tap';
import { chunks, tokenMatchF1, tokenMatchScore } from '../../../src/metrics/dialogue/token-match.js';
import { useLite } from '../../support/encoder.js';

const v = (...x: number[]) => Float32Array.from(x);

t.test('greedy token matching by hand', async (t) => {
  // h1 matches r1 exactly (1); h2 is at 45° from r1 and orthogonal to r2 (√½). r1 best 1, r2 best 0.
  const m = tokenMatchF1([v(1, 0, 0), v(1, 1, 0)], [v(1, 0, 0), v(0, 0, 1)]);
  t.ok(Math.abs(m.precision - (1 + Math.SQRT1_2) / 2) < 1e-7);
  t.ok(Math.abs(m.recall - 0.5) < 1e-7);
  t.ok(Math.abs(m.f1 - (2 * m.precision * m.recall) / (m.precision + m.recall)) < 1e-12);
  t.same(tokenMatchF1([], [v(1)]), { precision: 0, recall: 0, f1: 0, hypothesis_tokens: 0, reference_tokens: 1, truncated: false });
});

t.test('long texts are read in sentence chunks', async (t) => {
  t.same(chunks('One two three. Four five.\nSix seven eight nine.', 5), ['One two three. Four five.', 'Six seven eight nine.']);
  t.same(chunks('a b c d e f g', 3), ['a b c', 'd e f', 'g']);
});

t.test('on USE-lite token states: identical texts score 1, a paraphrase more than an unrelated text', async (t) => {
  const enc = await useLite();
  const same = await tokenMatchScore(enc, 'Preheat the oven to 180 degrees.', 'Preheat the oven to 180 degrees.');
  t.ok(Math.abs(same.f1 - 1) < 1e-5);
  const para = await tokenMatchScore(enc, 'Heat the oven up to 180 degrees first.', 'Preheat the oven to 180 degrees.');
  const other = await tokenMatchScore(enc, 'The stock market fell sharply today.', 'Preheat the oven to 180 degrees.');
  t.ok(para.f1 > other.f1, `paraphrase ${para.f1.toFixed(3)} > unrelated ${other.f1.toFixed(3)}`);
  const empty = await tokenMatchScore(enc, '  ', 'Preheat the oven.');
  t.equal(empty.f1, 0);
  const huge = await tokenMatchScore(enc, 'Stir the sauce slowly. '.repeat(2000), 'Stir the sauce.');
  t.equal(huge.truncated, true, 'past 512 tokens the rest is left out and said so');
});
