import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { alignWords, countChunks, meteor, type MeteorResult } from '../../../src/metrics/text/meteor.js';
import { pySplit } from '../../../src/metrics/text/tokenize-13a.js';

// Parity with NLTK 3.8 meteor_score on Princeton WordNet 3.0 (scripts/fixtures/meteor.py).
// Tolerance 1e-9: the arithmetic is the same IEEE double operations in the same order; the only
// library call is pow(), where V8 and glibc may differ in the last ulp.
type Components = MeteorResult;
interface Pair {
  id: string;
  hypothesis: string;
  references: string[];
  nltk: Components;
  params?: Array<{ opts: { alpha: number; beta: number; gamma: number }; nltk: Components }>;
}
const fixture = JSON.parse(readFileSync(new URL('../../fixtures/meteor/nltk-3.8.json', import.meta.url), 'utf8')) as {
  nltk_version: string;
  wordnet: { version: string };
  n: number;
  pairs: Pair[];
};
const TOL = 1e-9;

t.equal(fixture.nltk_version, '3.8');
t.equal(fixture.wordnet.version, '3.0');
t.ok(fixture.pairs.length >= 150, `${fixture.pairs.length} pairs`);

function check(t: Test, id: string, got: MeteorResult, want: Components): number {
  const dev = Math.max(...(['score', 'precision', 'recall', 'fmean', 'penalty'] as const).map((k) => Math.abs(got[k] - want[k])));
  const ok = dev <= TOL && got.chunks === want.chunks && got.matches === want.matches && got.referenceIndex === want.referenceIndex;
  if (!ok) t.fail(`${id}: got ${JSON.stringify(got)} want ${JSON.stringify(want)}`);
  return dev;
}

t.test('every fixture pair matches NLTK within 1e-9, components included', (t) => {
  let max = 0;
  let checked = 0;
  for (const p of fixture.pairs) {
    max = Math.max(max, check(t, p.id, meteor(p.hypothesis, p.references), p.nltk));
    checked++;
    for (const v of p.params ?? []) {
      max = Math.max(max, check(t, `${p.id} ${JSON.stringify(v.opts)}`, meteor(p.hypothesis, p.references, v.opts), v.nltk));
      checked++;
    }
  }
  t.ok(max <= TOL, `max abs deviation ${max} over ${checked} scores`);
  t.end();
});

t.test('hand examples', (t) => {
  // NLTK docstring-style identity: 6/6 matches, one chunk: fmean 1, penalty 0.5 * (1/6)^3.
  const id = meteor('the cat sat on the mat', ['the cat sat on the mat']);
  t.equal(id.matches, 6);
  t.equal(id.chunks, 1);
  t.ok(Math.abs(id.score - (1 - 0.5 / 216)) < 1e-15);
  // WordNet stage: kid ~ child.
  t.equal(meteor('the kid is happy', ['the child is happy']).matches, 4);
  // NLTK quirk kept: the synonym stage sees stems, and "large" is stemmed to "larg".
  t.equal(meteor('the big dog barked', ['the large dog barked']).matches, 3);
  t.same(meteor('', ['a b']), { score: 0, precision: 0, recall: 0, fmean: 0, penalty: 0, chunks: 0, matches: 0, referenceIndex: 0 });
  t.equal(meteor('a b c', ['x', 'a b c', 'a b c']).referenceIndex, 1);
  t.throws(() => meteor('a', []), RangeError);
  t.end();
});

t.test('alignment order and chunks follow NLTK', (t) => {
  // Greedy from the end: the last "the" of the hypothesis takes the last "the" of the reference.
  t.same(alignWords(['the', 'the'], ['the', 'x', 'the']), [
    [0, 0],
    [1, 2],
  ]);
  t.equal(
    countChunks([
      [0, 0],
      [1, 1],
      [2, 3],
      [3, 4],
    ]),
    2,
  );
  t.equal(countChunks([]), 1);
  t.end();
});

t.test('tokenization is Python str.split()', (t) => {
  t.same(pySplit('  a\tb\u00a0c\u0085d\x1fe\n'), ['a', 'b', 'c', 'd', 'e']);
  t.same(pySplit('a\ufeffb'), ['a\ufeffb']);
  t.same(pySplit(''), []);
  t.end();
});
