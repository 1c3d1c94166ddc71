import { isStopword } from '../gaming/text.js';
import { cueSpans } from '../pedagogy/reward.js';
import type { WordTable } from './word-vectors.js';

// Words of plan text as the meaning measures read them, and the vector arithmetic over their table rows.

// Letters and digits, camelCase split first ("viewModelScope" is three words): identifiers carry meaning in their parts.
const WORD = /[a-z][a-z0-9+#]*|[0-9]+(?:\.[0-9]+)?/g;
const splitCamel = (text: string) => text.replace(/([a-z0-9])([A-Z])/g, '$1 $2');

/** The words of a text as written, lowercased, identifiers whole ("numpy", not "num py"). */
export const plainWordsOf = (text: string): string[] => text.toLowerCase().match(WORD) ?? [];

/** The words of a text, lowercased, each with whether a phase cue covers it. */
export function wordsOf(text: string): { word: string; cue: boolean }[] {
  const lowered = splitCamel(text).toLowerCase();
  const spans = cueSpans(lowered);
  const out: { word: string; cue: boolean }[] = [];
  for (const m of lowered.matchAll(WORD)) {
    const start = m.index;
    const end = start + m[0].length;
    out.push({ word: m[0], cue: spans.some((s) => s.start < end && s.end > start) });
  }
  return out;
}

export const isNumber = (w: string) => w.charCodeAt(0) >= 48 && w.charCodeAt(0) <= 57;

export function unit(v: Float32Array): Float32Array | null {
  let s = 0;
  for (let k = 0; k < v.length; k++) s += v[k]! * v[k]!;
  if (s === 0) return null;
  const inv = 1 / Math.sqrt(s);
  for (let k = 0; k < v.length; k++) v[k]! *= inv;
  return v;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let k = 0; k < a.length; k++) s += a[k]! * b[k]!;
  return s;
}

/** The unit mean of the table rows of some words; null when the table knows none of them. */
export function meanOf(rows: readonly number[], t: WordTable): Float32Array | null {
  if (rows.length === 0) return null;
  const v = new Float32Array(t.dims);
  for (const r of rows) t.addRow(v, r, t.weight(r));
  return unit(v);
}

/** Rows of a text's content words: not grammar, generic words, cues or numbers, and known to the table. */
export function contentRows(text: string, t: WordTable): number[] {
  const rows: number[] = [];
  for (const { word, cue } of wordsOf(text)) {
    if (cue || isStopword(word) || isNumber(word)) continue;
    const r = t.row(word);
    if (r >= 0) rows.push(r);
  }
  return rows;
}
