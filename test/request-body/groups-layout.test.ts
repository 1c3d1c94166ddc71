import t from 'tap';
import { benchBatch } from '../../bench/realistic-plans.js';
import { mulberry32 } from '../../src/common/rng.js';
import { GroupsReader, GroupsScanner, headText } from '../../src/request-body/groups-layout.js';
import { splitLayout } from '../../src/service/score-plan/split-groups.js';

const TEXTS = ['', 'plain', 'quote " and \\ backslash', 'Ümlaute → 例 🙂', '\u0000\u001f control', '{"steps":[{"id":"a","depends_on":[]}]}', '\\"', ']},{['];

/** A random JSON value, `depth` levels deep at most. */
function randomValue(rnd: () => number, depth: number): unknown {
  const r = rnd();
  if (depth <= 0 || r < 0.4) {
    const pick = Math.floor(rnd() * 6);
    if (pick === 0) return TEXTS[Math.floor(rnd() * TEXTS.length)];
    if (pick === 1) return Math.round(rnd() * 1e6) / 100 - 5000;
    if (pick === 2) return rnd() < 0.5;
    if (pick === 3) return null;
    return `text ${Math.floor(rnd() * 1000)} ${TEXTS[Math.floor(rnd() * TEXTS.length)]}`;
  }
  if (r < 0.7) return Array.from({ length: Math.floor(rnd() * 4) }, () => randomValue(rnd, depth - 1));
  const keys = ['a', 'groups', 'completions', 'query', 'key with space', 'ü', '__proto__x'];
  return Object.fromEntries(Array.from({ length: Math.floor(rnd() * 4) }, () => [keys[Math.floor(rnd() * keys.length)]!, randomValue(rnd, depth - 1)]));
}

/** A random /score-plan-shaped body (seeded: a failure names the seed that reproduces it): groups of completions (text, objects, anything), other keys around them. */
function randomBody(seed: number): string {
  const rnd = mulberry32(seed);
  const groups = Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => {
    const entries: [string, unknown][] = [
      ['query', randomValue(rnd, 1)],
      ['profile', randomValue(rnd, 3)],
      ['completions', Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => (rnd() < 0.5 ? JSON.stringify(randomValue(rnd, 4)) : randomValue(rnd, 4)))],
    ];
    if (rnd() < 0.3) entries.push(['id', `g${Math.floor(rnd() * 100)}`]);
    if (rnd() < 0.3) entries.push(['extra', randomValue(rnd, 3)]);
    return Object.fromEntries(shuffle(rnd, entries));
  });
  const entries: [string, unknown][] = [['groups', groups]];
  if (rnd() < 0.5) entries.push(['run_id', rnd() < 0.5 ? null : 'run-1']);
  if (rnd() < 0.5) entries.push(['options', randomValue(rnd, 3)]);
  if (rnd() < 0.3) entries.push(['palette', [{ groups: [{ completions: [] }] }]]);
  const json = JSON.stringify(Object.fromEntries(shuffle(rnd, entries)), null, rnd() < 0.3 ? 2 : undefined);
  // Whitespace where JSON allows it, and none where it does not matter.
  return rnd() < 0.3 ? ` \n\t${json.replaceAll(',"', ' ,\r\n "')}\n` : json;
}

function shuffle<T>(rnd: () => number, xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

/** The bytes in random chunks, 1-byte ones included, so that escapes and characters are cut anywhere. */
function chunked(rnd: () => number, bytes: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = rnd() < 0.3 ? 1 : 1 + Math.floor(rnd() * 64);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

/**
 * The body as the service reads one in parts: the head on its own, the groups in runs as the workers get
 * them (`workers` of them at most), each group of a run parsed on its own; undefined where the service reads it whole.
 */
function read(chunks: Buffer[], workers = 2): unknown {
  const scanner = new GroupsScanner();
  for (const c of chunks) scanner.feed(c);
  const layout = scanner.layout();
  if (!layout) return undefined;
  const bytes = Buffer.concat(chunks);
  try {
    const head = JSON.parse(headText(bytes, layout)) as { groups?: unknown } | null;
    if (typeof head !== 'object' || head === null || !Array.isArray(head.groups) || head.groups.length !== 0) return undefined;
    const parts = splitLayout(layout.starts, layout.ends, workers);
    // Each group from its own range in its run, as a worker reads it; the run's bytes are the groups and the commas between.
    head.groups = parts.flatMap((p) => {
      const groups: unknown[] = [];
      for (let i = 0; i < p.ranges.length; i += 2) groups.push(JSON.parse(bytes.toString('utf8', p.start + p.ranges[i]!, p.start + p.ranges[i + 1]!)));
      if (JSON.stringify(groups) !== JSON.stringify(JSON.parse(`[${bytes.toString('utf8', p.start, p.end)}]`))) throw new Error('a run and its groups differ');
      return groups;
    });
    return head;
  } catch {
    return undefined;
  }
}

/** The body as the service reads a middling one: each group parsed as it arrives, then the head (GroupsReader). */
function readGrouped(chunks: Buffer[]): unknown {
  const reader = new GroupsReader((text) => JSON.parse(text));
  for (const c of chunks) reader.feed(c);
  return reader.value();
}

const READERS = { 'in parts': read, 'group by group': readGrouped } as const;

t.test('a body read in parts or group by group is the body JSON.parse reads whole, keys in the same order', async (t) => {
  for (const [how, reader] of Object.entries(READERS)) {
    // Seeds, collected and asserted once: a broken scanner fails thousands of them.
    const refused: number[] = [];
    const differ: number[] = [];
    for (let seed = 1; seed <= 500; seed++) {
      const text = randomBody(seed);
      const bytes = Buffer.from(text);
      const value = how === 'in parts' ? read(chunked(mulberry32(seed * 7), bytes), 1 + (seed % 4)) : reader(chunked(mulberry32(seed * 7), bytes));
      if (value === undefined) refused.push(seed);
      else if (JSON.stringify(value) !== JSON.stringify(JSON.parse(text))) differ.push(seed);
    }
    t.same(refused, [], `${how}: every well-formed body with groups of completions is read so`);
    t.same(differ, [], `${how}: and read as JSON.parse reads it`);
  }

  const scanner = new GroupsScanner();
  const text = randomBody(42);
  scanner.feed(Buffer.from(text));
  const layout = scanner.layout()!;
  const whole = JSON.parse(text) as { groups: unknown[] };
  const bytes = Buffer.from(text);
  t.same(
    layout.starts.map((s, i) => JSON.parse(bytes.toString('utf8', s, layout.ends[i]))),
    whole.groups,
    'each range holds its group',
  );
});

t.test('a body the scanner is unsure of is left to be parsed whole', async (t) => {
  const group = '{"query":"q","profile":{},"completions":["x"]}';
  for (const [why, text] of [
    ['a key written with escapes', `{"gr\\u006fups":[${group}]}`],
    ['"groups" twice', `{"groups":[${group}],"groups":[${group}]}`],
    ['groups not an array', `{"groups":${group}}`],
    ['a group not an object', `{"groups":[${group},"x"]}`],
    ['no groups', '{"groups":[]}'],
    ['a group in the wrong brackets', `{"groups":[${group.slice(0, -1)}]]}`],
    ['no "groups" key', `{"other":[${group}]}`],
    ['a byte-order mark', `\ufeff{"groups":[${group}]}`],
    ['text after the body', `{"groups":[${group}]} x`],
    ['a second body', `{"groups":[${group}]}{}`],
    ['a missing comma', `{"groups":[${group}${group}]}`],
    ['a trailing comma', `{"groups":[${group},]}`],
    ['a truncated body', `{"groups":[${group}]`],
    ['a group that is not JSON', '{"groups":[{"completions":[x]}]}'],
    ['a head that is not JSON', `{"groups":[${group}],}`],
    ['not an object', `[{"groups":[${group}]}]`],
  ] as const) {
    for (const [how, reader] of Object.entries(READERS)) t.equal(reader([Buffer.from(text)]), undefined, `${how}: ${why}`);
  }
  for (const [how, reader] of Object.entries(READERS)) {
    t.same(reader([Buffer.from(`{"groups":[${group}]}`)]), JSON.parse(`{"groups":[${group}]}`), `${how}: the same body, well formed, is read`);
  }
});

t.test('mutilated bodies: whatever is read is what JSON.parse reads whole', async (t) => {
  const tokens = ['{', '}', '[', ']', ',', ':', '"', '\\', ' ', 'x', '"groups"', '"completions"', '1'];
  let readSo = 0;
  let refused = 0;
  const unsound: number[] = [];
  const differ: number[] = [];
  for (let seed = 1; seed <= 3000; seed++) {
    const rnd = mulberry32(seed * 31);
    let text = randomBody(seed % 500);
    for (let m = 1 + Math.floor(rnd() * 3); m > 0; m--) {
      const at = Math.floor(rnd() * text.length);
      const cut = rnd() < 0.5 ? 1 : 0;
      text = text.slice(0, at) + (rnd() < 0.8 ? tokens[Math.floor(rnd() * tokens.length)] : '') + text.slice(at + cut);
    }
    // A cut surrogate pair is sent as U+FFFD: the reference reads the bytes sent, as the server does.
    const bytes = Buffer.from(text);
    // Each seed tries one of the two readers.
    const value = (seed % 2 === 0 ? read : readGrouped)(chunked(rnd, bytes));
    if (value === undefined) {
      refused++;
      continue;
    }
    readSo++;
    let whole: unknown;
    try {
      whole = JSON.parse(bytes.toString('utf8'));
    } catch {
      unsound.push(seed);
      continue;
    }
    if (JSON.stringify(value) !== JSON.stringify(whole)) differ.push(seed);
  }
  t.same(unsound, [], 'no body JSON.parse refuses is read');
  t.same(differ, [], 'every body read is read as JSON.parse reads it');
  t.ok(readSo > 300 && refused > 300, `both kinds tried: ${readSo} read, ${refused} left to be parsed whole`);
});

t.test('a 64×8 batch in 64 KiB chunks, read as it arrives, in parts or group by group', async (t) => {
  const text = JSON.stringify({ ...benchBatch(64, 8), run_id: null });
  const bytes = Buffer.from(text);
  const chunks = Array.from({ length: Math.ceil(bytes.length / (64 << 10)) }, (_, i) => bytes.subarray(i << 16, (i + 1) << 16));
  for (const [how, reader] of Object.entries(READERS)) {
    // Compared with ===: tap's diff of two megabyte strings would take minutes to print.
    const got = JSON.stringify(reader(chunks));
    t.ok(got === JSON.stringify(JSON.parse(text)), `${how}: read as JSON.parse reads it (${got?.length ?? 'nothing'} characters read)`);
  }
});
