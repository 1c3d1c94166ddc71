// Fresh plans: realistic tutoring plans whose every sentence is new each round, as a policy's samples are.
// The templates are the 540 honest plans of test/fixtures/plans/honest-corpus.json (real teaching content,
// real lengths); each round rewords every sentence of every step, goal and objective: several content words
// swapped for other words of the same kind (suffix class, capitalized name, code span) drawn from the same
// group's vocabulary or the source's, numbers moved, coordinated words and sentences reordered. Phase cues,
// grammar, generic tutoring words and the learner's profile words are kept, so each plan still teaches in
// the same phases and names the same learner; the structure (agents, tools, dependencies) is untouched, so
// every plan passes the hard gate as its template does. Deterministic per round (mulberry32); no sentence of
// a round repeats within it or equals its template's, and rounds share none in practice (the vocabulary gives
// each reworded sentence far more variants than any run has rounds; test/bench/fresh-plans.test.ts checks).
import { readFileSync } from 'node:fs';
import { mulberry32 } from '../src/common/rng.js';
import type { Plan } from '../src/contracts/plan.js';
import type { Profile } from '../src/contracts/profile.js';
import { isStopword, sentences } from '../src/rewards/gaming/text.js';
import { cueSpans } from '../src/rewards/pedagogy/reward.js';

interface CorpusGroup {
  id: string;
  source: string;
  query: string;
  profile: Profile;
  reference: string[];
  plans: { style: string; plan: Plan }[];
}

/** A /score-plan request body: each completion a plan as JSON text, as LLM trainers send them. */
export interface FreshBody {
  groups: { query: string; profile: Profile; completions: string[] }[];
  run_id: null;
}

const CORPUS_URL = new URL('../test/fixtures/plans/honest-corpus.json', import.meta.url);

// The kinds a word is swapped within: code spans, capitalized names, and lowercase content words by suffix
// (a rough part of speech: -ing, -ed, -ly, abstract nouns, plurals, the rest).
type Kind = 'code' | 'cap' | 'ing' | 'ed' | 'ly' | 'abstract' | 'plural' | 'base';
type Pool = Record<Kind, string[]>;
const KINDS: readonly Kind[] = ['code', 'cap', 'ing', 'ed', 'ly', 'abstract', 'plural', 'base'];

const NONE: ReadonlySet<string> = new Set();
// A code span, a number, or a word (apostrophes inside: "learner's", kept as is).
const TOKEN = /`[^`\n]+`|\d+(?:\.\d+)?|[A-Za-z][A-Za-z']*/g;

// Connectives and quantifiers the stopword list leaves out: grammar, kept where they stand.
const CONNECTIVES = new Set(
  (
    'therefore thus hence however since while whilst because although though unless until behind between among across ' +
    'within without already instead rather whether either neither around above below after before during even ever still ' +
    'many much more less least than then there their them they'
  ).split(' '),
);

function wordKind(word: string): Kind | null {
  if (word.includes("'")) return null;
  const lower = word.toLowerCase();
  if (lower.length < 4 || isStopword(lower) || CONNECTIVES.has(lower)) return null;
  if (/^[A-Z]/.test(word)) return 'cap';
  if (lower.endsWith('ing')) return 'ing';
  if (lower.endsWith('ed')) return 'ed';
  if (lower.endsWith('ly')) return 'ly';
  if (/(?:tion|sion|ment|ness|ity|ance|ence)$/.test(lower)) return 'abstract';
  if (/[^su]s$/.test(lower)) return 'plural';
  return 'base';
}

/** A text's tokens that may be reworded: where each lies, and its kind ('number' moves instead of swapping). */
interface Slot {
  start: number;
  end: number;
  text: string;
  kind: Kind | 'number';
  /** A word of this group's topic, not one of the framing every group of the source uses ("therefore", "notes"). */
  topical: boolean;
  /** A code span holding a sentence break ("`t[..., 1:]`"): the reader splits inside it, so it is always swapped. */
  breaks?: boolean;
}

// Where the reader (gaming/text.ts `sentences`) ends a sentence: in a code span, and splitting a text (kept).
const BREAK = /[.!?;](?:\s|[,;:])|\n/;
const READER_BREAKS = /(?<=[.!?;])(?:\s+|(?=[,;:]))|\n+/g;

/** A text cut where the reader ends a sentence, outside code spans (swapped whole): pieces at even places, separators at odd. */
function readerParts(text: string): string[] {
  const code = [...text.matchAll(/`[^`\n]+`/g)].map((m) => [m.index, m.index + m[0].length] as const);
  const parts: string[] = [];
  let last = 0;
  for (const m of text.matchAll(READER_BREAKS)) {
    if (code.some(([a, b]) => m.index > a && m.index < b)) continue;
    parts.push(text.slice(last, m.index), m[0]);
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}

function slotsOf(text: string, keep: ReadonlySet<string>, framing: ReadonlySet<string> = NONE): Slot[] {
  const lowered = text.toLowerCase();
  const cues = cueSpans(lowered);
  const out: Slot[] = [];
  // A word right after a sentence start is capitalized for the sentence, not as a name: kept.
  const sentenceStart = (i: number) => i === 0 || /[.!?;:"]\s*$/.test(text.slice(Math.max(0, i - 3), i));
  for (const m of text.matchAll(TOKEN)) {
    const start = m.index;
    const end = start + m[0].length;
    if (cues.some((c) => c.start < end && c.end > start)) continue;
    const w = m[0];
    if (w.startsWith('`')) out.push({ start, end, text: w, kind: 'code', topical: true, breaks: BREAK.test(w) });
    else if (/^\d/.test(w)) out.push({ start, end, text: w, kind: 'number', topical: false });
    else {
      const kind = wordKind(w);
      if (kind === null || keep.has(w.toLowerCase()) || (kind === 'cap' && sentenceStart(start))) continue;
      out.push({ start, end, text: w, kind, topical: !framing.has(w.toLowerCase()) });
    }
  }
  return out;
}

/** Every field of a plan whose text is read as sentences: steps' instruction and expected output, goals, objectives. */
function planTexts(plan: Plan): string[] {
  const out: string[] = [];
  for (const s of plan.steps) {
    out.push(s.instruction);
    if (s.expected_output) out.push(s.expected_output);
  }
  for (const a of plan.agents) for (const t of [a.goal, a.backstory]) if (t) out.push(t);
  for (const s of plan.subtasks) if (s.objective) out.push(s.objective);
  return out;
}

function profileWords(profile: Profile): Set<string> {
  const words = new Set<string>();
  const add = (v: unknown): void => {
    if (typeof v === 'string') for (const w of v.toLowerCase().match(/[a-z][a-z0-9+#']*/g) ?? []) words.add(w);
    else if (Array.isArray(v)) v.forEach(add);
    else if (v && typeof v === 'object') Object.values(v).forEach(add);
  };
  add(profile);
  return words;
}

interface Template {
  group: CorpusGroup;
  /** The group's own topical words by kind, each once. */
  own: Pool;
  /** The topical words of the groups of its source (coding-tutor or mathdial), each once. */
  source: Pool;
  /** The source's framing words by kind, each once: swapped among themselves only where a sentence has too few topical words. */
  framing: Pool;
  framingWords: ReadonlySet<string>;
  keep: Set<string>;
}

let loaded: Template[] | null = null;

// A word in more than this share of a source's groups is its framing ("therefore", "notes", "calculation"),
// not any one question's topic.
const FRAMING_SHARE = 0.1;

const distinctPool = (words: Iterable<[Kind, string]>): Pool => {
  const sets = Object.fromEntries(KINDS.map((k) => [k, new Set<string>()])) as unknown as Record<Kind, Set<string>>;
  for (const [k, w] of words) sets[k].add(w);
  return Object.fromEntries(KINDS.map((k) => [k, [...sets[k]].sort()])) as unknown as Pool;
};

/** The corpus groups with their vocabularies, read once. */
function templates(): readonly Template[] {
  if (loaded) return loaded;
  const corpus = JSON.parse(readFileSync(CORPUS_URL, 'utf8')) as { groups: CorpusGroup[] };
  // Each group's words by kind (a word keeps the kind and spelling it was first seen with).
  const words = corpus.groups.map((group) => {
    const keep = profileWords(group.profile);
    const found = new Map<string, [Kind, string]>();
    for (const text of [group.query, ...group.reference, ...group.plans.flatMap((p) => planTexts(p.plan))])
      for (const s of slotsOf(text, keep))
        if (s.kind !== 'number' && !s.breaks && !found.has(s.text.toLowerCase())) found.set(s.text.toLowerCase(), [s.kind, s.text]);
    return { group, keep, found };
  });
  const bySource = new Map<string, typeof words>();
  for (const w of words) bySource.set(w.group.source, [...(bySource.get(w.group.source) ?? []), w]);
  const pools = new Map<string, { source: Pool; framing: Pool; framingWords: Set<string> }>();
  for (const [source, groups] of bySource) {
    const df = new Map<string, number>();
    for (const g of groups) for (const w of g.found.keys()) df.set(w, (df.get(w) ?? 0) + 1);
    const framingWords = new Set([...df].filter(([w, n]) => n > FRAMING_SHARE * groups.length && !w.startsWith('`')).map(([w]) => w));
    const entries = groups.flatMap((g) => [...g.found]);
    pools.set(source, {
      source: distinctPool(entries.filter(([w]) => !framingWords.has(w)).map(([, e]) => e)),
      framing: distinctPool(entries.filter(([w]) => framingWords.has(w)).map(([, e]) => e)),
      framingWords,
    });
  }
  loaded = words.map(({ group, keep, found }) => {
    const p = pools.get(group.source)!;
    const own = distinctPool([...found].filter(([w]) => !p.framingWords.has(w)).map(([, e]) => e));
    return { group, own, source: p.source, framing: p.framing, framingWords: p.framingWords, keep };
  });
  corpusPlans = 0;
  for (const group of corpus.groups)
    for (const { plan } of group.plans) {
      corpusPlans++;
      for (const text of planTexts(plan)) for (const x of sentences(text)) timesInCorpus.set(x, (timesInCorpus.get(x) ?? 0) + 1);
    }
  return loaded;
}

const pick = <T>(xs: readonly T[], rand: () => number): T => xs[Math.floor(rand() * xs.length)]!;

const numberSpread = (n: string) => Math.max(5, Math.round(Math.abs(Number(n)) * 0.4));

function moveNumber(n: string, rand: () => number): string {
  const decimals = n.includes('.') ? n.length - n.indexOf('.') - 1 : 0;
  const x = Number(n);
  const spread = numberSpread(n);
  for (;;) {
    const delta = (1 + Math.floor(rand() * spread)) * (rand() < 0.5 ? -1 : 1);
    const y = x + delta / (decimals > 0 ? 10 : 1);
    if (y >= 0 && y.toFixed(decimals) !== n) return y.toFixed(decimals);
  }
}

/** Where a swapped word comes from: the group's own topical words, the source's, or the source's framing. */
type From = 'own' | 'source' | 'framing';

/**
 * Another word of the same kind from `from`, never the word itself (numbers move instead), with the bits of
 * choice it had: log2 of the words it was drawn among.
 */
function swapWord(s: Slot, t: Template, from: From, rand: () => number): { word: string; bits: number } | null {
  if (s.kind === 'number') return { word: moveNumber(s.text, rand), bits: Math.log2(2 * numberSpread(s.text)) };
  // A code span from the group's own where it has others; a small own pool of the kind gives way to the source's.
  const pools = [t[from][s.kind], t.own[s.kind], t.source[s.kind]];
  const pool = pools.find((p) => p.length >= (from === 'own' && s.kind !== 'code' ? MIN_OWN_POOL : 2));
  if (!pool) return null;
  for (let tries = 0; tries < 8; tries++) {
    let w = pick(pool, rand);
    if (w.toLowerCase() === s.text.toLowerCase()) continue;
    // Keep the casing the sentence gave the word it replaces.
    if (s.kind !== 'code' && s.kind !== 'cap') w = /^[A-Z]/.test(s.text) ? w[0]!.toUpperCase() + w.slice(1) : w.toLowerCase();
    return { word: w, bits: Math.log2(pool.length - 1) };
  }
  return null;
}

// A group's own words of a kind are drawn from only when it has this many.
const MIN_OWN_POOL = 6;

const PREPOSITIONS = ['for', 'with', 'in', 'about', 'from', 'on', 'and', 'as in'];

/** A random `n` of `xs`. */
const sample = <T>(xs: readonly T[], n: number, rand: () => number): T[] =>
  xs
    .map((x) => ({ x, r: rand() }))
    .sort((a, b) => a.r - b.r)
    .slice(0, n)
    .map((e) => e.x);

// Each sentence gets this many of its topical words swapped for words of the source (hundreds of each kind);
// further swaps, to `rate` of its topical words, come from the group's own words, keeping it on topic.
const STRONG = 3;
// The choices that rewording a sentence makes, at least, in bits: twice log2 of the times a run of ROUNDS_FOR
// rounds may reword it (a stock sentence, in every group's plans, thousands of times; a group's own, some
// dozens) plus MARGIN_BITS, so that two of them come out the same with a chance of about 2^-MARGIN_BITS.
// Where its swaps fall short, up to three framing words are swapped too and a qualifier of two to five
// topical words added.
const ROUNDS_FOR = 100;
const MARGIN_BITS = 14;
/** Times per corpus of a sentence (a reader's sentence of a template field), filled as the templates load. */
const timesInCorpus = new Map<string, number>();
let corpusPlans = 1;
const bitsFor = (piece: string) => {
  const times = ((timesInCorpus.get(piece.replace(/^[\s,;:]+/, '').trim()) ?? 1) * ROUNDS_FOR * 512) / corpusPlans;
  return 2 * Math.log2(Math.max(2, times)) + MARGIN_BITS;
};

const log2Choose = (n: number, k: number) => {
  let b = 0;
  for (let i = 0; i < k; i++) b += Math.log2((n - i) / (i + 1));
  return b;
};

/** One sentence (a field's piece up to . ! ? or ;) reworded. */
function rewordSentence(text: string, t: Template, rand: () => number, rate: number): string {
  // Clause order: "multiplication and division" ↔ "division and multiplication", now and then.
  let out = text.replace(/\b([a-z]{4,}) (and|or) ([a-z]{4,})\b/g, (m, a: string, c: string, b: string) =>
    rand() < 0.5 && !isStopword(a) && !isStopword(b) ? `${b} ${c} ${a}` : m,
  );
  const slots = slotsOf(out, t.keep, t.framingWords);
  const words = slots.filter((s) => s.topical && s.kind !== 'number' && s.kind !== 'code');
  const codes = slots.filter((s) => s.kind === 'code');
  const numbers = slots.filter((s) => s.kind === 'number');
  const shuffled = sample(words, words.length, rand);
  const strong = shuffled.slice(0, STRONG);
  const extra = shuffled.slice(STRONG, Math.max(STRONG, Math.round(rate * words.length)));
  const someCodes = sample(
    codes.filter((s) => !s.breaks),
    Math.ceil(codes.length / 3),
    rand,
  );
  const someNumbers = sample(numbers, Math.ceil(numbers.length / 2), rand);
  const chosen: [Slot, From][] = [
    ...strong.map((s): [Slot, From] => [s, 'source']),
    ...extra.map((s): [Slot, From] => [s, 'own']),
    // Identifiers: those the reader would split inside, and a third of the rest.
    ...codes.filter((s) => s.breaks).map((s): [Slot, From] => [s, 'own']),
    ...someCodes.map((s): [Slot, From] => [s, 'own']),
    ...someNumbers.map((s): [Slot, From] => [s, 'own']),
  ];
  let bits =
    log2Choose(words.length, strong.length + extra.length) + log2Choose(codes.length, someCodes.length) + log2Choose(numbers.length, someNumbers.length);
  const swap = (pairs: [Slot, From][]) => {
    pairs.sort((a, b) => b[0].start - a[0].start); // rewritten from the end, so earlier offsets hold
    for (const [s, from] of pairs) {
      const w = swapWord(s, t, from, rand);
      if (w === null) continue;
      out = out.slice(0, s.start) + w.word + out.slice(s.end);
      bits += w.bits;
    }
  };
  swap(chosen);
  const needed = bitsFor(text);
  if (bits < needed) {
    // Too few words of its own to reword: framing words swapped (found again: the swaps moved them, and put
    // in none), and a qualifier of two to five topical words, as a model adds one ("… = 9, for the
    // chocolate eggs.").
    const framing = slotsOf(out, t.keep, t.framingWords).filter((s) => !s.topical);
    swap(sample(framing, 3, rand).map((s): [Slot, From] => [s, 'framing']));
    const own = t.own.base.length >= MIN_OWN_POOL ? t.own.base : t.source.base;
    const second = rand() < 0.5 ? own : t.source.plural;
    const w = (pool: readonly string[]) => pick(pool, rand).toLowerCase();
    let qualifier = `${pick(PREPOSITIONS, rand)} the ${w(t.source.base)} ${w(second)}`;
    bits += Math.log2(PREPOSITIONS.length * t.source.base.length * second.length);
    for (let more = 0; bits < needed && more < 3; more++) {
      qualifier += `${more === 0 ? ' and' : ','} ${w(t.source.base)}`;
      bits += Math.log2(t.source.base.length);
    }
    const m = /[.!?;:]?["”)]?\s*$/.exec(out)!;
    out = `${out.slice(0, m.index)}, ${qualifier}${out.slice(m.index)}`;
  }
  return out;
}

/**
 * A field reworded sentence by sentence; a field of three sentences or more may also have its sentences after
 * the first reordered. Every sentence the reader will see (gaming/text.ts `sentences`) is new: none is its
 * template's, none was produced before in this round (`seen`).
 */
function rewordField(text: string, t: Template, rand: () => number, seen: Set<string>): string {
  const original = new Set(sentences(text));
  // Whole sentences (a capital after the break) after the first, reordered now and then.
  let whole = text.split(/(?<=[.!?])\s+(?=[A-Z"`])/);
  if (whole.length >= 3 && whole.slice(1).every((p) => /[.!?]["”]?$/.test(p)) && rand() < 0.35) {
    const rest = whole.slice(1);
    for (let i = rest.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [rest[i], rest[j]] = [rest[j]!, rest[i]!];
    }
    whole = [whole[0]!, ...rest];
  }
  // Reworded where the reader splits, so that each of its sentences changes: the separators at odd places.
  const parts = readerParts(whole.join(' '));
  for (let attempt = 0; ; attempt++) {
    const out = parts.map((p, i) => (i % 2 === 1 || !/[A-Za-z0-9]/.test(p) ? p : rewordSentence(p, t, rand, 0.3 + 0.1 * attempt))).join('');
    const said = sentences(out);
    if (said.every((s) => !original.has(s) && !seen.has(s))) {
      for (const s of said) seen.add(s);
      return out;
    }
    if (attempt > 20) throw new Error(`could not reword: ${text}`);
  }
}

function freshPlan(plan: Plan, t: Template, rand: () => number, seen: Set<string>): Plan {
  const field = (s: string) => rewordField(s, t, rand, seen);
  const copy = structuredClone(plan);
  for (const s of copy.steps) {
    s.instruction = field(s.instruction);
    if (s.expected_output) s.expected_output = field(s.expected_output);
  }
  for (const a of copy.agents) {
    if (a.goal) a.goal = field(a.goal);
    if (a.backstory) a.backstory = field(a.backstory);
  }
  for (const s of copy.subtasks) if (s.objective) s.objective = field(s.objective);
  return copy;
}

/** The query with two of its plain words swapped for the group's or source's: the group's context is new too. */
function freshQuery(t: Template, rand: () => number): string {
  const q = t.group.query;
  const slots = slotsOf(q, t.keep, t.framingWords).filter((s) => s.topical && s.kind !== 'code' && s.kind !== 'cap');
  let out = q;
  const chosen = sample(slots, 2, rand).sort((a, b) => b.start - a.start);
  for (const s of chosen) {
    const w = swapWord(s, t, rand() < 0.5 ? 'own' : 'source', rand);
    if (w !== null) out = out.slice(0, s.start) + w.word + out.slice(s.end);
  }
  return out;
}

/** Round `round`'s choice of templates: corpus groups in a seeded order, and each group's first plan. */
function selection(round: number, groups: number): { t: Template; first: number }[] {
  const all = templates();
  const rand = mulberry32(0x5eed + round * 7919);
  const order: number[] = [];
  while (order.length < groups) {
    const perm = all.map((_, i) => i);
    for (let i = perm.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [perm[i], perm[j]] = [perm[j]!, perm[i]!];
    }
    order.push(...perm);
  }
  return order.slice(0, groups).map((i) => ({ t: all[i]!, first: Math.floor(rand() * all[i]!.group.plans.length) }));
}

/**
 * Round `round`'s /score-plan body: `groups` rollout groups (corpus groups in a seeded order), each of
 * `plansPerGroup` plans reworded from its group's three plans in turn. The same round gives the same body.
 */
export function freshBatch(round: number, groups = 64, plansPerGroup = 8): FreshBody {
  const rand = mulberry32(0xf7e54 + round * 104729);
  const seen = new Set<string>();
  return {
    groups: selection(round, groups).map(({ t, first }) => ({
      query: freshQuery(t, rand),
      profile: t.group.profile,
      completions: Array.from({ length: plansPerGroup }, (_, k) =>
        JSON.stringify(freshPlan(t.group.plans[(first + k) % t.group.plans.length]!.plan, t, rand, seen)),
      ),
    })),
    run_id: null,
  };
}

/** Round `round`'s body as JSON text without `run_id`: counted into the default run, as a trainer's requests are. */
export function freshRunText(round: number, groups = 64, plansPerGroup = 8): string {
  const { run_id: _stateless, ...body } = freshBatch(round, groups, plansPerGroup);
  return JSON.stringify(body);
}

/** The same round's body with the templates as they are, unreworded: what freshBatch rewords, for comparison. */
export function templateBatch(round: number, groups = 64, plansPerGroup = 8): FreshBody {
  return {
    groups: selection(round, groups).map(({ t, first }) => ({
      query: t.group.query,
      profile: t.group.profile,
      completions: Array.from({ length: plansPerGroup }, (_, k) => JSON.stringify(t.group.plans[(first + k) % t.group.plans.length]!.plan)),
    })),
    run_id: null,
  };
}

/** Every sentence of a body's plans, as the gaming reading splits them (steps, goals, backstories, objectives). */
export function sentencesOf(body: FreshBody): string[] {
  return body.groups.flatMap((g) => g.completions.flatMap((c) => planTexts(JSON.parse(c) as Plan).flatMap((t) => sentences(t))));
}
