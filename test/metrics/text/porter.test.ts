import { readFileSync } from 'node:fs';
import t from 'tap';
import { porterStem } from '../../../src/metrics/text/porter.js';

// test/fixtures/porter/nltk-3.8.json: NLTK 3.8 PorterStemmer() (NLTK_EXTENSIONS) on every word of the
// metric-reference, MathDial and Bridge texts plus derived suffix forms; scripts/fixtures/porter.py.
const table: { nltk: string; mode: string; stems: Record<string, string> } = JSON.parse(
  readFileSync(new URL('../../fixtures/porter/nltk-3.8.json', import.meta.url), 'utf8'),
);

t.test('matches NLTK 3.8 on the whole fixture vocabulary', async (t) => {
  t.equal(table.nltk, '3.8');
  t.equal(table.mode, 'NLTK_EXTENSIONS');
  const words = Object.keys(table.stems);
  t.ok(words.length > 40_000, `${words.length} words`);
  const wrong = words.filter((w) => porterStem(w) !== table.stems[w]).map((w) => `${w}: ${porterStem(w)} != ${table.stems[w]}`);
  t.same(wrong.slice(0, 20), [], `${wrong.length} mismatches`);
});

t.test('classic and NLTK-specific cases', async (t) => {
  const cases: [string, string][] = [
    ['caresses', 'caress'],
    ['ponies', 'poni'],
    ['ties', 'tie'],
    ['cats', 'cat'],
    ['feed', 'feed'],
    ['agreed', 'agre'],
    ['plastered', 'plaster'],
    ['motoring', 'motor'],
    ['hopping', 'hop'],
    ['falling', 'fall'],
    ['filing', 'file'],
    ['happy', 'happi'],
    ['sky', 'sky'],
    ['dying', 'die'],
    ['relational', 'relat'],
    ['generalizations', 'gener'],
    ['electricity', 'electr'],
    ['running', 'run'],
    ['studies', 'studi'],
    ['a', 'a'],
    ['is', 'is'],
    ['', ''],
    ['SKY', 'ski'], // NLTK looks the irregular pool up before lowercasing
  ];
  for (const [w, s] of cases) t.equal(porterStem(w), s, w);
});
