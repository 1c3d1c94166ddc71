import { porterStem } from '../../metrics/text/porter.js';

// Words of plan text as the gaming signals read them: lowercased, with their places, so that the profile's
// phrases and the phase cues (found by their own matchers) can be laid over them.

export interface Word {
  text: string;
  start: number;
  end: number;
}

// "dataframe.groupby" and "objective-c" are two words each: a profile phrase inside one leaves the other its own.
const WORD = /[a-z0-9][a-z0-9+#]*(?:'[a-z]+)?/g;

export function words(lowered: string): Word[] {
  const out: Word[] = [];
  WORD.lastIndex = 0;
  for (let m = WORD.exec(lowered); m !== null; m = WORD.exec(lowered)) out.push({ text: m[0], start: m.index, end: m.index + m[0].length });
  return out;
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
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 4 && long.startsWith(short);
}

// Plan vocabularies are small and repeat across the plans of a group and across groups.
const stems = new Map<string, string>();
const STEM_CACHE_MAX = 50_000;

export function stem(w: string): string {
  let s = stems.get(w);
  if (s === undefined) {
    if (stems.size >= STEM_CACHE_MAX) stems.clear();
    s = porterStem(w.replace(/'/g, ''));
    stems.set(w, s);
  }
  return s;
}

/** The word n-gram starting at each word of a text, joined by spaces, for finding runs copied from it. */
export function ngramRuns(ws: readonly string[], n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i + n <= ws.length; i++) out.push(n === 2 ? `${ws[i]} ${ws[i + 1]}` : ws.slice(i, i + n).join(' '));
  return out;
}
