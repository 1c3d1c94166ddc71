// The hand-written readers of plan text against what they replace: the word regex, the per-character map
// of which word covers a span, and runs joined into strings.
import t from 'tap';
import { mulberry32 } from '../../../src/common/rng.js';
import { touched, WordRuns, WordTable, words } from '../../../src/rewards/gaming/text.js';

const WORD = /[a-z0-9][a-z0-9+#]*(?:'[a-z]+)?/g;
const reference = (lowered: string) => [...lowered.matchAll(WORD)].map((m) => ({ text: m[0], start: m.index, end: m.index + m[0].length }));
const scanned = (lowered: string) => {
  const { texts, bounds } = words(lowered);
  return texts.map((text, i) => ({ text, start: bounds[2 * i]!, end: bounds[2 * i + 1]! }));
};

const rand = mulberry32(7);
const ALPHABET = ['a', 'z', 'q', '0', '9', '+', '#', "'", "'", ' ', '.', '-', '_', '\n', 'é', 'İ', 'A', '€', '`'];
const randomText = (max: number) => Array.from({ length: Math.floor(rand() * max) }, () => ALPHABET[Math.floor(rand() * ALPHABET.length)]).join('');

t.test('words are the matches of the word regex, with their places', async (t) => {
  const fixed = ["don't's", 'c++ and c#', "'s", "a'", "x'y'z", "python's '9", "o'", 'dataframe.groupby objective-c', '', 'é', "l'été"];
  for (const text of fixed) t.same(scanned(text), reference(text), JSON.stringify(text));
  let differ = 0;
  for (let k = 0; k < 3000; k++) {
    const text = randomText(40);
    if (JSON.stringify(scanned(text)) !== JSON.stringify(reference(text))) differ++;
  }
  t.equal(differ, 0, 'random texts read differently');
});

t.test('a table of known words reads what words() reads, one entry per distinct word, and starts again only when asked past its bound', async (t) => {
  let made = 0;
  const small = new WordTable((word) => ({ word, n: made++ }), 200);
  const large = new WordTable((word) => ({ word }), 1_000_000);
  let differ = 0;
  let split = 0;
  let shared = 0;
  for (let k = 0; k < 3000; k++) {
    const text = randomText(40);
    const plain = JSON.stringify([words(text).texts, words(text).bounds]);
    for (const table of [small, large]) {
      const { entries, bounds } = table.read(text);
      if (JSON.stringify([entries.map((e) => e.word), bounds]) !== plain) differ++;
    }
    // Between two restarts a word has one entry, however often it is read and however full the table.
    for (const table of [small, large]) {
      const byWord = new Map<string, object>();
      for (const e of [...table.read(text).entries, ...table.read(text).entries]) {
        const seen = byWord.get(e.word);
        if (seen === undefined) byWord.set(e.word, e);
        else if (seen === e) shared++;
        else split++;
      }
    }
    if (k % 100 === 99) small.startAgainIfFull();
  }
  t.equal(differ, 0, 'random texts read differently');
  t.equal(split, 0, 'a word with two entries');
  t.ok(shared > 1000, `repeated words share their entry (${shared} times)`);
  t.ok(small.epoch > 0, `the small table started again past its bound (${small.epoch} times)`);
  t.equal(large.epoch, 0, 'the large table never did');
  t.notOk(large.startAgainIfFull(), 'and is not full');
  // Started again, a word gets a new entry.
  const before = small.read('pandas').entries[0];
  for (let k = 0; k < 300; k++) small.read(`w${k}`);
  t.ok(small.startAgainIfFull(), 'past 200 words it starts again when asked');
  t.not(small.read('pandas').entries[0], before, 'a new entry after it');
  // Many words, most of them sharing a slot with others and growing the table: each is still itself.
  const ws = Array.from({ length: 100_000 }, (_, i) => `w${i.toString(36)}`);
  t.same(
    large.read(ws.join(' ')).entries.map((e) => e.word),
    ws,
  );
  t.same(
    large.read(ws.join(' ')).entries.map((e) => e.word),
    ws,
    'and read again from the table',
  );
});

t.test('the words a span touches are those a per-character map of words gives', async (t) => {
  let differ = 0;
  for (let k = 0; k < 2000; k++) {
    const text = randomText(30);
    const { bounds } = words(text);
    const n = bounds.length / 2;
    const at = new Int32Array(text.length).fill(-1);
    for (let i = 0; i < n; i++) at.fill(i, bounds[2 * i], bounds[2 * i + 1]);
    const start = Math.floor(rand() * (text.length + 1));
    const end = start + 1 + Math.floor(rand() * (text.length - start + 1));
    const expected = new Set<number>();
    for (let c = start; c < Math.min(end, text.length); c++) if (at[c]! >= 0) expected.add(at[c]!);
    const got: number[] = [];
    const [from, to] = touched(bounds, start, end);
    for (let i = from; i < to; i++) got.push(i);
    if (JSON.stringify(got) !== JSON.stringify([...expected])) differ++;
  }
  t.equal(differ, 0, 'spans that touch other words');
});

t.test('a run is found exactly when its words joined by spaces are one of the runs added', async (t) => {
  const vocabulary = ['sql', 'in', 'python', 'c++', 'the', 'data', "learner's"];
  for (const n of [1, 2, 3]) {
    // Fewer words for longer runs, so that runs are found as well as missed.
    const some = vocabulary.slice(0, 8 - 2 * n);
    const list = (max: number) => Array.from({ length: Math.floor(rand() * max) }, () => some[Math.floor(rand() * some.length)]!);
    let differ = 0;
    let found = 0;
    let emptiness = 0;
    for (let k = 0; k < 300; k++) {
      const runs = new WordRuns(n);
      const joined = new Set<string>();
      for (const source of [list(8), list(8)]) {
        runs.addAll(source);
        for (let i = 0; i + n <= source.length; i++) joined.add(source.slice(i, i + n).join(' '));
      }
      if (runs.empty !== (joined.size === 0)) emptiness++;
      const ws = list(10);
      for (let i = 0; i + n <= ws.length; i++) {
        const expected = joined.has(ws.slice(i, i + n).join(' '));
        if (
          runs.has(ws, i) !== expected ||
          runs.has(
            ws.map((word) => ({ word })),
            i,
          ) !== expected
        )
          differ++;
        if (expected) found++;
      }
    }
    t.equal(differ, 0, `runs of ${n} looked up differently`);
    t.equal(emptiness, 0, `runs of ${n}: empty when none were added, and only then`);
    t.ok(found > 100, `runs of ${n} found often enough to test (${found})`);
  }
});
