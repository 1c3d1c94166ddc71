import { readFileSync } from 'node:fs';
import t from 'tap';
import { getWordNet, readWordNetFiles, shareWordNetFiles, WordNet, type WordNetPos } from '../../../src/metrics/text/wordnet.js';

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

t.test('binary search over the files finds what a map of every line finds, from shared memory too', (t) => {
  const files = readWordNetFiles();
  // The plain reference: every index line parsed into a map, every exception line too (a later line wins).
  const offsets = new Map<string, number[]>();
  const exceptions = new Map<string, string[]>();
  const lemmas: string[] = [];
  for (const [pos, suffix] of [
    ['n', 'noun'],
    ['v', 'verb'],
    ['a', 'adj'],
    ['r', 'adv'],
  ] as const) {
    for (const line of files[`index.${suffix}`]!.toString('utf8').split('\n')) {
      if (line === '' || line.startsWith(' ')) continue;
      const f = line.split(' ');
      const first = 4 + Number(f[3]) + 2;
      offsets.set(`${pos} ${f[0]}`, f.slice(first, first + Number(f[2])).map(Number));
      lemmas.push(f[0]!);
    }
    for (const line of files[`${suffix}.exc`]!.toString('utf8').split('\n')) {
      const f = line.split(/\s+/).filter(Boolean);
      if (f.length > 0) exceptions.set(`${pos} ${f[0]}`, f.slice(1));
    }
  }
  const shared = new WordNet(shareWordNetFiles(files));
  t.ok(
    Object.values(shareWordNetFiles(files)).every((b) => b.buffer instanceof SharedArrayBuffer),
    'shared files live in a SharedArrayBuffer',
  );
  // Every 5th lemma, every exception form, and near misses (a letter more or less) that are mostly absent.
  const probes = [...lemmas.filter((_, i) => i % 5 === 0), ...[...exceptions.keys()].map((k) => k.slice(2))];
  probes.push(...probes.slice(0, 2000).flatMap((w) => [`${w}z`, w.slice(0, -1), `a${w}`]));
  let checked = 0;
  for (const w of probes) {
    for (const pos of ['n', 'v', 'a', 'r'] as const) {
      const want = offsets.get(`${pos} ${w}`) !== undefined;
      if (wn.has(w, pos) !== want || shared.has(w, pos) !== want) t.fail(`has(${w}, ${pos}) should be ${want}`);
      checked++;
    }
    const want = [
      ...new Set([...(['n', 'v', 'a', 'r'] as const).flatMap((pos) => (offsets.get(`${pos} ${w.toLowerCase()}`) ?? []).map((o) => `${pos}:${o}`))]),
    ];
    const got = shared.synsets(w).map((s) => `${s.pos}:${s.offset}`);
    // synsets() goes through morphy, so it may find more than the exact lemma; the exact lemma's synsets are among them.
    if (!want.every((s) => got.includes(s))) t.fail(`synsets(${w}) misses some of ${want.join(' ')}`);
  }
  for (const [key, bases] of exceptions) {
    const [pos, form] = [key[0] as WordNetPos, key.slice(2)];
    const lemmaOf = (x: string) => offsets.has(`${pos} ${x}`);
    const want = [...new Set([form, ...bases])].filter(lemmaOf);
    if (JSON.stringify(shared.morphy(form, pos)) !== JSON.stringify(want)) t.fail(`morphy(${form}, ${pos}) should be ${want.join(' ')}`);
  }
  t.ok(checked > 100_000, `${checked} lookups agree`);
  t.end();
});
