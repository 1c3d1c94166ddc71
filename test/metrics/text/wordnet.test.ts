import { readFileSync } from 'node:fs';
import t from 'tap';
import { getWordNet, readWordNetFiles, WordNet, type WordNetPos } from '../../../src/metrics/text/wordnet.js';

const lookups = (
  JSON.parse(readFileSync(new URL('../../fixtures/meteor/nltk-3.8.json', import.meta.url), 'utf8')) as {
    wordnet_lookups: Record<string, { morphy: Record<WordNetPos, string[]>; synonyms: string[] }>;
  }
).wordnet_lookups;

const wn = getWordNet();

t.test('morphy and synonyms match NLTK 3.8 on WordNet 3.0 (fixture words)', (t) => {
  for (const [word, want] of Object.entries(lookups)) {
    for (const pos of ['n', 'v', 'a', 'r'] as const) t.same(wn.morphy(word.toLowerCase(), pos), want.morphy[pos], `morphy(${word}, ${pos})`);
    // NLTK's METEOR adds the word itself to its synonym set.
    t.same([...wn.synonyms(word)].sort(), [...new Set([...want.synonyms, word])].sort(), `synonyms(${word})`);
  }
  t.end();
});

t.test('morphy by hand', (t) => {
  // Exception list wins outright: "geese" → goose (noun.exc); "ran" → run (verb.exc).
  t.same(wn.morphy('geese', 'n'), ['goose']);
  t.same(wn.morphy('ran', 'v'), ['run']);
  // Exceptions keep the form itself first when it is a lemma: "better" (adj.exc → good, well).
  t.same(wn.morphy('better', 'a'), ['better', 'good', 'well']);
  // Detachment rules, in rule order, original form included when it is a lemma.
  t.same(wn.morphy('churches', 'n'), ['church']);
  t.same(wn.morphy('dogs', 'n'), ['dog']);
  t.same(wn.morphy('boxes', 'n'), ['box']);
  t.same(wn.morphy('studied', 'v'), ['study']);
  t.same(wn.morphy('running', 'v'), ['run']);
  t.same(wn.morphy('running', 'n'), ['running']);
  t.same(wn.morphy('hardest', 'a'), ['hard']);
  // Adverbs have no rules; unknown words give nothing.
  t.same(wn.morphy('quickly', 'r'), ['quickly']);
  t.same(wn.morphy('xyzzy', 'n'), []);
  t.end();
});

t.test('synonym lookup by hand', (t) => {
  t.ok(wn.synonyms('big').has('large'));
  t.ok(wn.synonyms('kid').has('child'));
  t.ok(wn.synonyms('children').has('kid'), 'morphy maps children → child first');
  t.ok(wn.synonyms('car').has('automobile'));
  // Multi-word lemmas (with "_") are left out; case of lemma names is kept.
  t.notOk([...wn.synonyms('dog')].some((s) => s.includes('_')));
  t.ok(wn.synonyms('kid').has('Kid'));
  // Porter stems rarely are lemmas: the set is just the stem itself.
  t.same([...wn.synonyms('larg')], ['larg']);
  t.same(
    wn.synsets('axes').map((s) => `${s.pos}:${s.offset}`),
    wn.synsets('AXES').map((s) => `${s.pos}:${s.offset}`),
    'synsets() lower-cases like NLTK',
  );
  // Syntactic markers like "(a)" are stripped from adjective lemma names.
  t.same([...wn.synonyms('galore')].sort(), ['abounding', 'galore'], 'galore(ip) → galore');
  t.end();
});

t.test('the tarball fallback reads the same bytes as the unpacked dict', (t) => {
  const a = readWordNetFiles(false);
  const b = readWordNetFiles(true);
  t.same(Object.keys(a).sort(), Object.keys(b).sort());
  for (const k of Object.keys(a)) t.ok(a[k]!.equals(b[k]!), k);
  t.ok(new WordNet(b).synonyms('kid').has('child'));
  t.end();
});
