import { porterStem } from '../../metrics/text/porter.js';

// Words of plan text as the gaming signals read them: lowercased, with their places, so that the profile's
// phrases and the phase cues (found by their own matchers) can be laid over them.

/** The words of a lowered text, and where word i lies: [bounds[2i], bounds[2i + 1]). */
export interface Words {
  texts: string[];
  bounds: number[];
}

const isLetter = (c: number) => c >= 97 && c <= 122; // a-z
const isAlnum = (c: number) => isLetter(c) || (c >= 48 && c <= 57); // a-z0-9
const inWord = (c: number) => isAlnum(c) || c === 43 || c === 35; // a-z0-9+#

/**
 * The matches of /[a-z0-9][a-z0-9+#]*(?:'[a-z]+)?/g, scanned by hand: the match arrays of the regex were
 * most of what reading a plan's text allocated. "dataframe.groupby" and "objective-c" are two words each:
 * a profile phrase inside one leaves the other its own.
 */
export function words(lowered: string): Words {
  const texts: string[] = [];
  const bounds: number[] = [];
  // charCodeAt past the end is NaN, which no test accepts.
  for (let i = 0; i < lowered.length; ) {
    if (!isAlnum(lowered.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i++;
    while (inWord(lowered.charCodeAt(i))) i++;
    if (lowered.charCodeAt(i) === 39 /* ' */ && isLetter(lowered.charCodeAt(i + 1))) {
      i += 2;
      while (isLetter(lowered.charCodeAt(i))) i++;
    }
    texts.push(lowered.slice(start, i));
    bounds.push(start, i);
  }
  return { texts, bounds };
}

/** What a table of known words keeps of each: the word, and what its maker derived from it. */
export interface KnownWord {
  readonly word: string;
}

// Open addressing over a power of two: each slot holds a word's full hash beside its entry, so a probe
// that meets another word is told apart by one number, without reaching the word's string.
const START_BITS = 16;
const EMPTY = 0;

/**
 * The words of lowered texts as `words` finds them, each looked up in a table of the words seen before, by
 * a hash computed while scanning: a known word costs no new string and no string hashing, and its entry
 * (what `make` derived from it once) comes with it. Fresh text is mostly known words in new sentences.
 *
 * A word keeps its one entry until the owner calls `startAgainIfFull` past `max` entries: reading never
 * starts the table again, it grows it, so entries can stand for their words (compared by identity, marked)
 * between two such calls. `epoch` counts the times it started again.
 */
export class WordTable<T extends KnownWord> {
  private hashes = new Int32Array(1 << START_BITS);
  private entries = new Array<T | undefined>(1 << START_BITS);
  private size = 0;
  epoch = 0;

  constructor(
    private readonly make: (word: string) => T,
    private readonly max: number,
  ) {}

  /** Empties the table when it holds `max` entries or more; true when it did. */
  startAgainIfFull(): boolean {
    if (this.size < this.max) return false;
    this.hashes = new Int32Array(1 << START_BITS);
    this.entries = new Array<T | undefined>(1 << START_BITS);
    this.size = 0;
    this.epoch++;
    return true;
  }

  /** The entries of `lowered`'s words, in order, and where word i lies: [bounds[2i], bounds[2i + 1]). */
  read(lowered: string): { entries: T[]; bounds: number[] } {
    const entries: T[] = [];
    const bounds: number[] = [];
    // The scan of `words`, hashing (FNV-1a) each word's characters as it goes.
    for (let i = 0; i < lowered.length; ) {
      let c = lowered.charCodeAt(i);
      if (!isAlnum(c)) {
        i++;
        continue;
      }
      const start = i;
      let h = 0x811c9dc5;
      do {
        h = Math.imul(h ^ c, 16777619);
        c = lowered.charCodeAt(++i);
      } while (inWord(c));
      if (c === 39 /* ' */ && isLetter(lowered.charCodeAt(i + 1))) {
        h = Math.imul(h ^ c, 16777619);
        c = lowered.charCodeAt(++i);
        do {
          h = Math.imul(h ^ c, 16777619);
          c = lowered.charCodeAt(++i);
        } while (isLetter(c));
      }
      entries.push(this.lookup(lowered, start, i, h | 0 || 1));
      bounds.push(start, i);
    }
    return { entries, bounds };
  }

  /** `hash` is never EMPTY. */
  private lookup(text: string, start: number, end: number, hash: number): T {
    const mask = this.hashes.length - 1;
    const length = end - start;
    let at = hash & mask;
    for (let h = this.hashes[at]!; h !== EMPTY; at = (at + 1) & mask, h = this.hashes[at]!) {
      if (h !== hash) continue;
      const w = this.entries[at]!.word;
      if (w.length !== length) continue;
      let k = 0;
      while (k < length && w.charCodeAt(k) === text.charCodeAt(start + k)) k++;
      if (k === length) return this.entries[at]!;
    }
    const entry = this.make(text.slice(start, end));
    this.hashes[at] = hash;
    this.entries[at] = entry;
    // Probe runs stay short while the table is at most half full.
    if (++this.size * 2 > this.hashes.length) this.grow();
    return entry;
  }

  private grow(): void {
    const { hashes, entries } = this;
    this.hashes = new Int32Array(hashes.length * 2);
    this.entries = new Array<T | undefined>(hashes.length * 2);
    const mask = this.hashes.length - 1;
    for (let i = 0; i < hashes.length; i++) {
      const h = hashes[i]!;
      if (h === EMPTY) continue;
      let at = h & mask;
      while (this.hashes[at] !== EMPTY) at = (at + 1) & mask;
      this.hashes[at] = h;
      this.entries[at] = entries[i];
    }
  }
}

/** The words a span of characters [start, end) touches, as word indices [from, to). */
export function touched(bounds: readonly number[], start: number, end: number): [from: number, to: number] {
  const n = bounds.length / 2;
  let from = 0;
  while (from < n && bounds[2 * from + 1]! <= start) from++;
  let to = from;
  while (to < n && bounds[2 * to]! < end) to++;
  return [from, to];
}

/** Sentences of a field: a keyword list hidden after a real sentence ("… edge cases., Java") is its own unit. */
export function sentences(text: string): string[] {
  // Most fields are one sentence: a break only at the very end splits nothing.
  if (!/[.!?;\n]./.test(text.trimEnd())) return text.trim().length > 0 ? [text.trim()] : [];
  return text
    .split(/(?<=[.!?;])(?:\s+|(?=[,;:]))|\n+/)
    .map((s) => s.replace(/^[\s,;:]+/, '').trim())
    .filter((s) => s.length > 0);
}

// Grammar: a keyword list has none of these, a sentence has some.
const FUNCTION = new Set(
  (
    'a an the and or but nor so yet of to in on at by for with from into onto about as than then that this these those it its ' +
    'is are was were be been being am do does did done has have had having will would can could should may might must shall ' +
    'i me my we our you your he she his her they them their what which who whom whose when where why how if else not no ' +
    'all any each every both some such only same very just also too up down out over under again once here there'
  ).split(' '),
);
// Words any tutoring step uses: they say nothing of what a step is about.
const GENERIC = new Set(
  (
    'learner learners student students user users tutor teacher agent step steps plan task tasks learn learning know knows understand ' +
    'use using used want need help make get give take go way like one two first next new ask asks own more most few ' +
    'solution solutions answer problem problems project app application work'
  ).split(' '),
);

export const isFunctionWord = (w: string): boolean => FUNCTION.has(w);
export const isStopword = (w: string): boolean => FUNCTION.has(w) || GENERIC.has(w);

/** Stems that match when one is a prefix of the other ("month" / "monthli", "group" / "groupbi"). */
export function stemsMatch(a: string, b: string): boolean {
  if (a === b) return true;
  // No destructured pair: this runs for each of a sentence's topical words against each query stem.
  return a.length <= b.length ? a.length >= 4 && b.startsWith(a) : b.length >= 4 && a.startsWith(b);
}

/** A word's stem, as the signals compare words (signals.ts keeps each word's, with its kind). */
export const stem = (w: string): string => porterStem(w.replace(/'/g, ''));

type Trie = Map<string, Trie>;

/**
 * Runs of `n` consecutive words of some texts, kept as a trie of their words: a run is looked up word by
 * word, without joining it into a string first (one string per word of every text read, most never seen again).
 */
export class WordRuns {
  private readonly root: Trie = new Map();

  constructor(readonly n: number) {}

  get empty(): boolean {
    return this.root.size === 0;
  }

  /** Adds every run of `ws`. */
  addAll(ws: readonly string[]): void {
    for (let i = 0; i + this.n <= ws.length; i++) {
      let t = this.root;
      for (let j = i; j < i + this.n; j++) {
        let next = t.get(ws[j]!);
        if (next === undefined) t.set(ws[j]!, (next = new Map()));
        t = next;
      }
    }
  }

  /** Whether some run added starts with `word`. */
  starts(word: string): boolean {
    return this.root.has(word);
  }

  /** Whether the run of `ws` (words, or a table's entries of them) starting at word `i` was added. */
  has(ws: readonly string[] | readonly KnownWord[], i: number): boolean {
    let t: Trie | undefined = this.root;
    for (let j = i; j < i + this.n && t !== undefined; j++) {
      const w = ws[j]!;
      t = t.get(typeof w === 'string' ? w : w.word);
    }
    return t !== undefined;
  }
}
