// Whole-word phrase matching shared by profile-signal extraction and plan-text search. Texts are
// lowercased by the caller; a space, hyphen or underscore inside a phrase matches any run of those.

const SEPARATOR = /[\s_-]/;

export function normalizePhrase(text: string): string {
  return text
    .toLowerCase()
    .trim()
    .replace(/[\s_-]+/g, ' ');
}

// A phrase that starts with a word character starts at \b, one that starts with a symbol ("c++", ".net")
// where no letter, digit or underscore precedes it; each ends the same way. The start is written once per
// kind, not once per phrase, which V8 scans faster. The two kinds cannot match at the same position (one
// begins with a word character, the other not), so the leftmost match is the one the phrases listed each
// with its own start give, and the longest-first order holds within each kind.
interface Pattern {
  wordStart: boolean;
  /** The phrase and its end, without its start. */
  rest: string;
}

function phrasePattern(phrase: string): Pattern {
  const body = phrase
    .split(' ')
    .map((w) => w.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('[\\s_-]+');
  const end = /\w$/.test(phrase) ? '\\b' : '(?![a-z0-9_])';
  return { wordStart: /^\w/.test(phrase), rest: `${body}${end}` };
}

const patterns = new Map<string, Pattern>();

/** Precomputes the patterns of a fixed vocabulary (the lexicon) so group matchers are cheap to build. */
export function rememberPhrases(phrases: Iterable<string>): void {
  for (const p of phrases) patterns.set(p, phrasePattern(p));
}

/** One compiled alternation over many normalized phrases; `scan` returns the ones found in a text. */
export class PhraseMatcher {
  private readonly regex: RegExp | null;

  constructor(normalizedPhrases: Iterable<string>) {
    const unique = [...new Set(normalizedPhrases)].filter((p) => p.length > 0);
    // Longest first, so "ruby on rails" wins over "ruby" at the same position.
    unique.sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    const words: string[] = [];
    const symbols: string[] = [];
    for (const p of unique) {
      const { wordStart, rest } = patterns.get(p) ?? phrasePattern(p);
      (wordStart ? words : symbols).push(rest);
    }
    const kinds: string[] = [];
    if (words.length > 0) kinds.push(`\\b(?:${words.join('|')})`);
    if (symbols.length > 0) kinds.push(`(?<![a-z0-9_])(?:${symbols.join('|')})`);
    this.regex = kinds.length > 0 ? new RegExp(kinds.join('|'), 'g') : null;
  }

  /** `text` must already be lowercased (callers lowercase once per text, not once per phrase). */
  scan(text: string): Set<string> {
    return new Set(this.spans(text).map((s) => s.phrase));
  }

  /** Each match with where it lies in `text` (lowercased, as for `scan`). */
  spans(text: string): { phrase: string; start: number; end: number }[] {
    const out: { phrase: string; start: number; end: number }[] = [];
    const re = this.regex;
    if (!re) return out;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      out.push({ phrase: SEPARATOR.test(m[0]) ? normalizePhrase(m[0]) : m[0], start: m.index, end: m.index + m[0].length });
    }
    return out;
  }
}
