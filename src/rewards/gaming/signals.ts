import type { GamingSignal, GamingSignalCode } from '../../contracts/gaming.js';
import type { Phase } from '../../contracts/palette.js';
import type { Plan, Step } from '../../contracts/plan.js';
import type { Profile } from '../../contracts/profile.js';
import type { PedagogyReward, PersonalizationReward } from '../../contracts/results.js';
import type { PlanAnalysis } from '../../plan/analyze.js';
import { toolPhase, type ResolvedPalette } from '../../plan/palette.js';
import { SCORED_PHASES } from '../pedagogy/phases.js';
import { cueSpans, PHASE_BIT } from '../pedagogy/reward.js';
import type { SignalCoverage } from '../personalization/reward.js';
import { isProgrammingStem } from './topic.js';
import { jaccardAtLeast, type SetLike } from '../../common/jaccard.js';
import { RepeatCache } from '../../common/repeat-cache.js';
import { profileItems, profileText } from '../personalization/profile-text.js';
import { isFunctionWord, isStopword, type KnownWord, sentences, stem, stemsMatch, touched, WordRuns, WordTable, words } from './text.js';
import { GAMING_THRESHOLDS, READING as R } from './thresholds.js';

/** What the signals read of a rollout group besides its plans: built once per group. */
export interface GamingContext {
  /** This context's number, by which a word's entry knows what it was in the context last reading it (inContext). */
  serial: number;
  coverage: SignalCoverage | null;
  /** Stems of the query's own words (not profile phrases, cues or function words); null without a query. */
  queryStems: string[] | null;
  /** Word runs of the query and the profile, to tell text a plan copied from its own. */
  copySource: WordRuns;
  /** Words of the profile's tags, skills and signals: named, they are the profile's words, not the plan's. */
  profileWords: Set<string>;
  /** Plan fields already read, by text, and the word sets of instructions. */
  fields: { sentences: Map<string, RawSentence[]>; labels: Map<string, RawSentence[]>; wordSets: Map<string, WordSet>; epoch: number };
  /** The group's topic stems numbered, and a plan's vocabulary as marks on those numbers. */
  topic: TopicMarks;
}

/**
 * A plan's vocabulary (the topic stems of its on-topic sentences) as marks: stem k is in the current
 * plan's vocabulary when `marks[k] === plan`. Each plan would otherwise build a set of some hundred stems.
 */
interface TopicMarks {
  ids: Map<string, number>;
  marks: Int32Array;
  plan: number;
  /** Per stem number: 1 when the stem matches a query stem (stemsMatch), taken once per group. */
  query: Uint8Array;
  /** Per stem number: the last sentence that counted it (`sentence`), so each sentence counts a stem once. */
  seen: Int32Array;
  sentence: number;
}

const topicMarks = (): TopicMarks => ({ ids: new Map(), marks: new Int32Array(64), plan: 0, query: new Uint8Array(64), seen: new Int32Array(64), sentence: 0 });

/** `a`, or a copy of it twice as long when index `length` is past its end. */
function grown<A extends Int32Array | Uint8Array>(a: A, length: number): A {
  if (length < a.length) return a;
  const b = new (a.constructor as new (n: number) => A)(a.length * 2);
  b.set(a);
  return b;
}

/** The number of a stem in the group, given on first sight, when its match with the query is taken too. */
function topicId(t: TopicMarks, stem: string, queryStems: readonly string[] | null): number {
  let id = t.ids.get(stem);
  if (id === undefined) {
    id = t.ids.size;
    t.ids.set(stem, id);
    t.marks = grown(t.marks, id);
    t.query = grown(t.query, id);
    t.seen = grown(t.seen, id);
    t.query[id] = queryStems !== null && matchesAny(stem, queryStems) ? 1 : 0;
  }
  return id;
}

/** What the guarded reward needs of the signals' reading, besides the signals. */
export interface GamingReading {
  signals: GamingSignal[];
  /** Profile signals the plan names in sentences of its own. */
  signalsInSentences: Set<string>;
  /** Scored phases some step enacts (not only cues). */
  enactedPhases: Set<Phase>;
  /** Each signal's measure, fired or not (for calibration). */
  measures: Record<GamingSignalCode, number>;
}

const plainWords = (text: string) => words(text.toLowerCase()).texts;

let contexts = 0;

export function gamingContext(query: string | null | undefined, profile: Profile | undefined, coverage: SignalCoverage | null): GamingContext {
  const copySource = new WordRuns(R.copiedRun);
  for (const text of [query ?? '', ...profileText(profile).split('\n')]) copySource.addAll(plainWords(text));
  const profileWords = new Set(
    [...profileItems(profile), ...(coverage?.signals.flatMap((s) => s.phrases) ?? [])].flatMap(plainWords).filter((w) => !isFunctionWord(w)),
  );
  const fields = () => ({ sentences: new Map(), labels: new Map(), wordSets: new Map(), epoch: wordInfos.epoch });
  const own = { serial: ++contexts, coverage, copySource, profileWords, fields: fields(), topic: topicMarks() };
  if (!query) return { ...own, queryStems: null };
  const ownWords: WordInfo[] = [];
  readSentence(
    query,
    {
      serial: ++contexts,
      coverage,
      queryStems: null,
      copySource: new WordRuns(R.copiedRun),
      profileWords: new Set(),
      fields: fields(),
      topic: topicMarks(),
    },
    false,
    ownWords,
  );
  const stems = [...new Set(ownWords.map((w) => w.stem))];
  return { ...own, queryStems: stems.length > 0 ? stems : null };
}

/** What a sentence says, read once per distinct text of a group (its plans share most of their text). */
interface RawSentence {
  label: boolean;
  /** Its words, lowercased, as the table of known words holds them. */
  words: readonly WordInfo[];
  grammar: number;
  /** Words that are not function words. */
  content: number;
  /** Content words that are profile phrases. */
  signalWords: number;
  /** How many of its words are the plan's own: not profile phrases, cues, copied runs, profile items, function or generic words. */
  own: number;
  /** Numbers (TopicMarks) of the distinct stems of the words that say what it is about, copied ones included. */
  topics: number[];
  /** Ids of the profile signals named in it outside copied runs. */
  named: ReadonlySet<string>;

  /** The phases its cues name (PHASE_BIT). */
  cues: number;
  /** Its text's reading, whatever the group (asksLearner). */
  text: Text;
  /** Whether it names a programming word or the query. */
  onTopic: boolean;
  /** It settled, off topic and on topic: a plan's sentences are mostly those of the plans before it. */
  settledOff: Sentence | undefined;
  settledOn: Sentence | undefined;
}

/** A sentence in its plan: whether it is on topic there, and what it then credits. */
interface Sentence {
  raw: RawSentence;
  onTopic: boolean;
  /** Ids of the profile signals it credits: named in a sentence around them, on topic. */
  signals: ReadonlySet<string>;
  /** Whether it says something of its own besides cues: a sentence that does what its cues name. */
  acts: boolean;
  /** The same with the smaller number of own words activation needs: it activates if it also asks the learner (asksLearner). */
  mayActivate: boolean;
}

const NONE: ReadonlySet<string> = new Set();

/** What depends on whether the sentence is on topic: a sentence about something else credits nothing. */
function settle(raw: RawSentence, onTopic: boolean): Sentence {
  return onTopic ? (raw.settledOn ??= settled(raw, true)) : (raw.settledOff ??= settled(raw, false));
}

function settled(raw: RawSentence, onTopic: boolean): Sentence {
  const { label, grammar, signalWords, content, own } = raw;
  // A keyword list has no grammar, or is all keywords however it is dressed.
  const credits = label
    ? signalWords < content && signalWords <= R.labelKeywordShare * content
    : grammar > 0 && onTopic && own >= R.sentenceOwnWordsForSignals && signalWords <= R.sentenceKeywordShare * content;
  return {
    raw,
    onTopic,
    signals: credits ? raw.named : NONE,
    acts: grammar > 0 && onTopic && own >= R.sentenceOwnWords,
    mayActivate: grammar > 0 && onTopic && own >= R.activationOwnWords,
  };
}

// Activation probes the learner: a question to them, not the cue word alone.
const ASKS_LEARNER =
  /\?|\b(?:ask|asks|asking|question|questions|quiz|quizzes|survey|interview|find out|what (?:the (?:learner|student|user)|they|you) (?:already )?(?:know|knows|use|uses|used|tried|understand))\b/i;

// What each word of a text is, whatever the group, in the low bits of its flags: grammar, a word about
// nothing (a generic word or a number), or one that may say what the text is about. The high bits say
// whether a phase cue covers it and whether it is a programming word.
const GRAMMAR = 0;
const GENERIC = 1;
const TOPICAL = 2;
const KIND = 3;
const IN_CUE = 4;
const PROGRAMMING = 8;

/** What a sentence's text says whatever the group: its words, cues and programming words. */
interface Text {
  lowered: string;
  /** Its words, as the table of known words holds them. */
  words: WordInfo[];
  /** Where each word lies (Words). */
  bounds: number[];
  /** Per word: its kind, IN_CUE, PROGRAMMING. */
  flags: Uint8Array;
  /** The phases its cues name (PHASE_BIT). */
  cues: number;
  /** The text as written, and whether it asks the learner something, once asked (asksLearner). */
  source: string;
  asks: boolean | undefined;
}

// Only activation on a step with human input asks: the question is put to few sentences.
const asksLearner = (t: Text): boolean => (t.asks ??= ASKS_LEARNER.test(t.source));

// Plans repeat their sentences across groups (templates, stock phrasings): the group-free reading of a text
// that repeats is kept.
const TEXT_CACHE_MAX = 4096;
const texts = { sentences: new RepeatCache<Text>(TEXT_CACHE_MAX), labels: new RepeatCache<Text>(TEXT_CACHE_MAX) };

const readText = (text: string, label: boolean): Text => (label ? texts.labels.get(text, readLabel) : texts.sentences.get(text, readSentenceText));
const readLabel = (text: string) => textOf(text, true);
const readSentenceText = (text: string) => textOf(text, false);

/** A word's kind, programming bit and stem, whatever the text it is in. */
interface WordInfo extends KnownWord {
  flags: number;
  stem: string;
  /** Scratch mark of the reading of word sets (WordSet). */
  mark: number;
  /** The serial of the context the fields below are of (inContext). */
  context: number;
  /** Its stem's number in that context (TopicMarks), -1 until asked. */
  topic: number;
  /** Whether it is one of the profile's words there. */
  profileWord: boolean;
  /** Whether a run copied from the query or profile starts with it there. */
  startsCopy: boolean;
}

/**
 * `w` with what `ctx` makes of it: taken once per word and context, not at each of its occurrences. A
 * group's plans share most of their words.
 */
function inContext(w: WordInfo, ctx: GamingContext): WordInfo {
  if (w.context !== ctx.serial) {
    w.context = ctx.serial;
    w.topic = -1;
    w.profileWord = ctx.profileWords.has(w.word);
    w.startsCopy = ctx.copySource.starts(w.word);
  }
  return w;
}

function wordInfoOf(w: string): WordInfo {
  const s = stem(w);
  return {
    word: w,
    flags: (isFunctionWord(w) ? GRAMMAR : isStopword(w) || /^\d+$/.test(w) ? GENERIC : TOPICAL) | (isProgrammingStem(s) ? PROGRAMMING : 0),
    stem: s,
    mark: 0,
    context: 0,
    topic: -1,
    profileWord: false,
    startsCopy: false,
  };
}

// Texts are new far more often than their words, and plan vocabularies are small and repeat across plans and
// groups: each word is found in the table while the text is scanned, and no word is stemmed twice.
const WORD_INFO_MAX = 50_000;
const wordInfos = new WordTable(wordInfoOf, WORD_INFO_MAX);

/**
 * Where the table may start again: before a plan is read, so a plan's words each have one entry throughout
 * its reading. The readings that hold entries (the texts kept, a context's fields) start again with it.
 */
function startPlan(ctx: GamingContext): void {
  if (wordInfos.startAgainIfFull()) {
    texts.sentences.clear();
    texts.labels.clear();
  }
  const f = ctx.fields;
  if (f.epoch !== wordInfos.epoch) {
    f.sentences.clear();
    f.labels.clear();
    f.wordSets.clear();
    f.epoch = wordInfos.epoch;
  }
}

function textOf(text: string, label: boolean): Text {
  const lowered = text.toLowerCase();
  const { entries, bounds } = wordInfos.read(lowered);
  const n = entries.length;
  const flags = new Uint8Array(n);
  for (let i = 0; i < n; i++) flags[i] = entries[i]!.flags;
  let cues = 0;
  if (!label) {
    for (const span of cueSpans(lowered)) {
      cues |= PHASE_BIT[span.phase];
      const [from, to] = touched(bounds, span.start, span.end);
      for (let i = from; i < to; i++) flags[i]! |= IN_CUE;
    }
  }
  return { lowered, words: entries, bounds, flags, cues, source: text, asks: undefined };
}

// Per-word marks of the sentence being read (a profile phrase covers it, it lies in a copied run), reused
// from sentence to sentence: readSentence runs for every distinct sentence of every group.
const IN_SIGNAL = 1;
const COPIED = 2;
let marks = new Uint8Array(256);
const NO_SPANS: readonly { phrase: string; start: number; end: number }[] = [];
const NO_NAMES: ReadonlySet<string> = new Set();

/**
 * `label`: a role or a name, which needs no grammar to name a signal ("SQL tutor"). `own`, when given,
 * receives the sentence's own words.
 */
function readSentence(text: string, ctx: GamingContext, label: boolean, own?: WordInfo[]): RawSentence {
  const read = readText(text, label);
  const { lowered, words: ws, bounds, flags, cues } = read;
  const n = ws.length;
  if (marks.length < n) marks = new Uint8Array(2 * n);
  const mk = marks;
  mk.fill(0, 0, n);
  for (let i = 0; i < n; i++) inContext(ws[i]!, ctx);
  const spans = ctx.coverage?.phraseSpans(lowered) ?? NO_SPANS;
  for (const span of spans) {
    const [from, to] = touched(bounds, span.start, span.end);
    for (let i = from; i < to; i++) mk[i]! |= IN_SIGNAL;
  }
  // A run shared with the query or profile is copied when it carries a word besides profile phrases and
  // grammar: "in Objective-C" is how anyone names the learner's language, not a paste.
  if (!ctx.copySource.empty) {
    for (let i = 0; i + R.copiedRun <= n; i++) {
      let carries = false;
      for (let j = i; j < i + R.copiedRun && !carries; j++) carries = (mk[j]! & IN_SIGNAL) === 0 && (flags[j]! & KIND) !== GRAMMAR;
      if (carries && ws[i]!.startsCopy && ctx.copySource.has(ws, i)) for (let j = i; j < i + R.copiedRun; j++) mk[j]! |= COPIED;
    }
  }
  let named: Set<string> | undefined;
  for (const span of spans) {
    const id = ctx.coverage!.signalOf(span.phrase)?.id;
    if (id === undefined) continue;
    let copied = false;
    const [from, to] = touched(bounds, span.start, span.end);
    for (let i = from; i < to && !copied; i++) copied = (mk[i]! & COPIED) !== 0;
    if (!copied) (named ??= new Set()).add(id);
  }
  let grammar = 0;
  let content = 0;
  let signalWords = 0;
  let ownWords = 0;
  let onTopic = false;
  // What the sentence is about, copied words included: naming the query's words is how a step stays on
  // topic. Distinct stems have distinct numbers, so the query's words are counted as numbers are first seen.
  const topics: number[] = [];
  const q = ctx.queryStems;
  const t = ctx.topic;
  const sentence = ++t.sentence;
  let queryWords = 0;
  for (let i = 0; i < n; i++) {
    const f = flags[i]!;
    const k = f & KIND;
    if (k === GRAMMAR) {
      grammar++;
      continue;
    }
    content++;
    const m = mk[i]!;
    if (m & IN_SIGNAL) signalWords++;
    else if (k === TOPICAL && !(f & IN_CUE)) {
      const w = ws[i]!;
      const id = w.topic >= 0 ? w.topic : (w.topic = topicId(t, w.stem, q));
      if (t.seen[id] !== sentence) {
        t.seen[id] = sentence;
        topics.push(id);
        queryWords += t.query[id]!;
      }
      onTopic ||= (f & PROGRAMMING) !== 0;
      if (!(m & COPIED) && !w.profileWord) {
        ownWords++;
        own?.push(w);
      }
    }
  }
  if (!onTopic && q !== null) onTopic = queryWords >= R.queryWords;
  return {
    label,
    words: ws,
    grammar,
    content,
    signalWords,
    own: ownWords,
    topics,
    named: named ?? NO_NAMES,
    cues,
    text: read,
    onTopic,
    settledOff: undefined,
    settledOn: undefined,
  };
}

function matchesAny(s: string, stems: readonly string[]): boolean {
  for (const x of stems) if (stemsMatch(s, x)) return true;
  return false;
}

// A group's plans are read against one context, so the cache lives there, bounded.
const FIELD_CACHE_MAX = 2048;

let markRound = 0;

/** An instruction's distinct words, each entry once: `has` answers by the marks of its last `mark`. */
class WordSet implements SetLike<WordInfo> {
  private round = 0;
  constructor(private readonly items: readonly WordInfo[]) {}
  get size(): number {
    return this.items.length;
  }
  [Symbol.iterator](): Iterator<WordInfo> {
    return this.items[Symbol.iterator]();
  }
  /** Marks its words, for `has` until another set marks them. */
  mark(): void {
    const round = (this.round = ++markRound);
    for (const w of this.items) w.mark = round;
  }
  has(w: WordInfo): boolean {
    return w.mark === this.round;
  }
}

/** jaccardAtLeast, with the set it asks `has` (the larger, b when equal) marked first. */
function overlapAtLeast(a: WordSet, b: WordSet, t: number): boolean {
  (a.size <= b.size ? b : a).mark();
  return jaccardAtLeast(a, b, t);
}

/**
 * The set of an instruction's words, for telling repeated steps apart: the words of its sentences, which
 * are the words of the whole text (a sentence ends where no word does). Entries stand for their words: a
 * plan is read with the table of known words unchanged (startPlan).
 */
function wordSet(instruction: string, ctx: GamingContext): WordSet {
  const cache = ctx.fields.wordSets;
  let set = cache.get(instruction);
  if (set === undefined) {
    const items: WordInfo[] = [];
    const round = ++markRound;
    for (const r of readField(instruction, ctx)) {
      for (const w of r.words) {
        if (w.mark === round) continue;
        w.mark = round;
        items.push(w);
      }
    }
    set = new WordSet(items);
    if (cache.size >= FIELD_CACHE_MAX) cache.clear();
    cache.set(instruction, set);
  }
  return set;
}

function readField(text: string | undefined, ctx: GamingContext, label = false): RawSentence[] {
  if (!text) return [];
  const cache = label ? ctx.fields.labels : ctx.fields.sentences;
  let read = cache.get(text);
  if (read === undefined) {
    if (cache.size >= FIELD_CACHE_MAX) cache.clear();
    read = sentences(text).map((s) => readSentence(s, ctx, label));
    cache.set(text, read);
  }
  return read;
}

/**
 * A step enacts a phase when one of its sentences names the phase (or the step's tool stands for it) and says
 * something of its own; activation must also ask the learner, in that sentence, on a step with human input.
 */
function enacts(phase: Phase, step: Step, sentences: readonly Sentence[], palette: ResolvedPalette): boolean {
  const viaTool = toolPhase(palette, step.tool) === phase;
  const bit = PHASE_BIT[phase];
  if (phase === 'activation')
    return step.human_input === true && sentences.some((s) => s.mayActivate && (viaTool || (s.raw.cues & bit) !== 0) && asksLearner(s.raw.text));
  return sentences.some((s) => s.acts && (viaTool || (s.raw.cues & bit) !== 0));
}

const names = (ids: Iterable<string>) => [...ids].join(', ');

/** The steps credited with any of `phases`, each once, in the order the phases list them. */
function distinctSteps(phases: readonly Phase[], ped: PedagogyReward): string[] {
  const out = new Set<string>();
  for (const p of phases) for (const id of ped.phases[p].steps) out.add(id);
  return [...out];
}
const percent = (x: number) => `${(x * 100).toFixed(0)} %`;

type Measures = Record<GamingSignalCode, number>;

const fires = (code: GamingSignalCode, measures: Measures) => measures[code] > GAMING_THRESHOLDS[code];

/** A signal that fired, with its evidence. */
const signal = (code: GamingSignalCode, measures: Measures, message: string, steps: string[]): GamingSignal => ({
  code,
  message,
  steps,
  value: measures[code],
  threshold: GAMING_THRESHOLDS[code],
});

/** The sentences of each step's instruction and expected output, read in the group. */
export type StepSentences = readonly (readonly RawSentence[])[];

export function readSteps(plan: Plan, ctx: GamingContext): StepSentences {
  startPlan(ctx);
  return plan.steps.map((s) => readField(s.instruction, ctx).concat(readField(s.expected_output, ctx)));
}

/** The phases each step's cues name (PHASE_BIT), as pedagogyReward takes them. */
export function stepCues(steps: StepSentences): number[] {
  const out = new Array<number>(steps.length);
  for (let i = 0; i < steps.length; i++) {
    let bits = 0;
    for (const r of steps[i]!) bits |= r.cues;
    out[i] = bits;
  }
  return out;
}

/**
 * The gaming signals of one parsed plan, with their evidence (docs/rewards.md §10). Each signal has one
 * measure, taken on every plan, and fires when the measure is past its threshold.
 */
export function readGaming(
  a: PlanAnalysis,
  palette: ResolvedPalette,
  pers: PersonalizationReward | null,
  ped: PedagogyReward,
  ctx: GamingContext,
  rawSteps: StepSentences = readSteps(a.plan, ctx),
): GamingReading {
  const { plan } = a;
  const n = plan.steps.length;
  // One round of the plan's own topic: a sentence that shares words with on-topic step sentences is on topic
  // too. One shared word is not enough: "change" or "write" is in every plan, however often.
  const { topic } = ctx;
  const mark = ++topic.plan;
  for (const ss of rawSteps) for (const r of ss) if (r.onTopic) for (const k of r.topics) topic.marks[k] = mark;
  const shared = (r: RawSentence) => {
    let n = 0;
    for (const k of r.topics) if (topic.marks[k] === mark) n++;
    return n;
  };
  const place = (r: RawSentence) => settle(r, r.onTopic || shared(r) >= R.topicSharedWords);
  const bySteps = rawSteps.map((ss) => ss.map(place));
  // Array.prototype.flat is a slow generic path in V8, and this runs for every plan.
  const stepSentences: Sentence[] = [];
  for (const ss of bySteps) for (const x of ss) stepSentences.push(x);
  // Each signal is pushed where its measure is taken, in GAMING_SIGNAL_CODES order, its evidence written only
  // when it fires. Not by closures kept to the end of the reading: kept, they made the scavenges keep and
  // promote each plan's whole reading.
  const signals: GamingSignal[] = [];
  const measures = {} as Measures;

  // bare_keywords: the share of the steps' profile-signal mentions that stand outside sentences of the plan's
  // own (keyword lists, text about something else), or of the signals the paper credits that no such
  // sentence names (copied text included), whichever is larger.
  let mentions = 0;
  let bareMentions = 0;
  const signalsInSentences = new Set<string>();
  for (const s of stepSentences) {
    mentions += s.raw.named.size;
    bareMentions += s.raw.named.size - s.signals.size;
    for (const id of s.signals) signalsInSentences.add(id);
  }
  const hits = pers?.hits ?? [];
  // Roles, goals and names are read only for the signals no step sentence credits.
  if (hits.some((h) => !signalsInSentences.has(h.id))) {
    const credit = (read: readonly RawSentence[]) => {
      for (const r of read) for (const id of place(r).signals) signalsInSentences.add(id);
    };
    for (const agent of plan.agents) {
      credit(readField(agent.role, ctx, true));
      credit(readField(agent.goal, ctx));
      credit(readField(agent.backstory, ctx));
    }
    for (const s of plan.subtasks) {
      credit(readField(s.name, ctx, true));
      credit(readField(s.objective, ctx));
    }
  }
  const bare = hits.filter((h) => !signalsInSentences.has(h.id));
  measures.bare_keywords = Math.max(hits.length === 0 ? 0 : bare.length / hits.length, mentions === 0 ? 0 : bareMentions / mentions);
  if (fires('bare_keywords', measures)) {
    signals.push(
      signal(
        'bare_keywords',
        measures,
        `${bareMentions} of ${mentions} profile-signal mentions in the steps stand in keyword lists or non-sentences` +
          (bare.length > 0 ? `; ${bare.length} of ${hits.length} credited signals only there: ${names(bare.map((b) => b.label))}` : ''),
        plan.steps.filter((_, i) => bySteps[i]!.some((s) => s.raw.named.size > s.signals.size)).map((s) => s.id),
      ),
    );
  }

  // keyword_stuffing: profile phrases as a share of the steps' content words, over the plan and over each long
  // step (one stuffed step among ten real ones). Not cues: honest plans are dense with them ("assess their prior
  // knowledge"), and a cue earns nothing in a step that is not about the question (§11d).
  const share = (ss: readonly Sentence[]) => {
    let content = 0;
    let phrases = 0;
    for (const s of ss) {
      content += s.raw.content;
      phrases += s.raw.signalWords;
    }
    return { content, share: content === 0 ? 0 : phrases / content };
  };
  const perStep = bySteps.map(share);
  let stuffing = share(stepSentences).share;
  for (const p of perStep) if (p.content >= R.longStepWords && p.share > stuffing) stuffing = p.share;
  measures.keyword_stuffing = stuffing;
  if (fires('keyword_stuffing', measures)) {
    signals.push(
      signal(
        'keyword_stuffing',
        measures,
        `${percent(measures.keyword_stuffing)} of the content words of the plan's steps or of its densest long step are profile phrases`,
        plan.steps.filter((_, i) => perStep[i]!.content >= R.longStepWords && perStep[i]!.share > GAMING_THRESHOLDS.keyword_stuffing).map((s) => s.id),
      ),
    );
  }

  // duplicate_steps: the share of steps whose instruction's word set is (nearly) an earlier one's.
  const sets = plan.steps.map((s) => wordSet(s.instruction, ctx));
  const repeats: string[] = [];
  for (let j = 1; j < n; j++) {
    if (sets[j]!.size < R.duplicateMinWords) continue;
    for (let i = 0; i < j; i++) {
      // Jaccard is at most the smaller set's size over the larger's: most pairs end here.
      const a = sets[i]!.size;
      const b = sets[j]!.size;
      if (a < R.duplicateMinWords || Math.min(a, b) < R.duplicateJaccard * Math.max(a, b)) continue;
      // An instruction text seen before in the group is one set (wordSet keeps it): a step repeated word for word needs no count.
      if (sets[i] === sets[j] || overlapAtLeast(sets[i]!, sets[j]!, R.duplicateJaccard)) {
        repeats.push(plan.steps[j]!.id);
        break;
      }
    }
  }
  measures.duplicate_steps = n === 0 ? 0 : repeats.length / n;
  if (fires('duplicate_steps', measures)) {
    signals.push(signal('duplicate_steps', measures, `${repeats.length} step(s) repeat an earlier step word for word or nearly: ${names(repeats)}`, repeats));
  }

  // off_topic: the share of steps that name nothing of programming or of the query in words of their own.
  const loose: string[] = [];
  for (let i = 0; i < n; i++) if (!bySteps[i]!.some((s) => s.onTopic)) loose.push(plan.steps[i]!.id);
  measures.off_topic = n === 0 ? 0 : loose.length / n;
  if (fires('off_topic', measures)) {
    signals.push(
      signal(
        'off_topic',
        measures,
        `${percent(measures.off_topic)} of the steps name nothing of programming or of the query beyond profile keywords and cues`,
        loose,
      ),
    );
  }

  // cue_only_phase: the scored phases the paper credits that no step enacts.
  // ped.steps has each step's entry, in plan order. A credited id stands for the first step of that id, as
  // everywhere in the analysis (a repeated id is a violation of its own).
  const enactedPhases = new Set<Phase>();
  const cueOnly: Phase[] = [];
  for (const phase of SCORED_PHASES) {
    if (ped.phases[phase].steps.length === 0) continue;
    let acted = false;
    for (let i = 0; i < n && !acted; i++) {
      if (!ped.steps[i]!.phases.includes(phase)) continue;
      const step = plan.steps[i]!;
      const first = a.steps.get(step.id) === step ? i : plan.steps.indexOf(a.steps.get(step.id)!);
      acted = enacts(phase, plan.steps[first]!, bySteps[first]!, palette);
    }
    if (acted) enactedPhases.add(phase);
    else cueOnly.push(phase);
  }
  measures.cue_only_phase = cueOnly.length;
  if (fires('cue_only_phase', measures)) {
    signals.push(
      signal('cue_only_phase', measures, `${names(cueOnly)}: credited by cue words alone, no step does what the phase means`, distinctSteps(cueOnly, ped)),
    );
  }

  // degenerate_structure: the ways the structural reward pays for a plan that is no multi-agent plan.
  // One agent running every step is a plan in its own right (a single tutor), not a degenerate one.
  const reasons: string[] = [];
  if (n >= R.structureMinSteps && a.dependencies.declaredEdges === 0) reasons.push(`none of the ${n} steps depends on another`);
  measures.degenerate_structure = reasons.length;
  if (fires('degenerate_structure', measures)) signals.push(signal('degenerate_structure', measures, reasons.join('; '), []));

  return { signals, measures, signalsInSentences, enactedPhases };
}
