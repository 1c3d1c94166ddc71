// Whole-word phrase matching shared by profile-signal extraction and plan-text search. Texts are
// lowercased by the caller; a space, hyphen or underscore inside a phrase matches any run of those.

const SEPARATOR = /[\s_-]/;

export function normalizePhrase(text: string): string {
  return text
    .toLowerCase()
    .trim()
    .replace(/[\s_-]+/g, ' ');
}

// \b where a phrase starts or ends with a word character (fast), lookaround where it starts or ends with
// a symbol ("c++", ".net").
function phrasePattern(phrase: string): string {
  const body = phrase
    .split(' ')
    .map((w) => w.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('[\\s_-]+');
  const start = /^\w/.test(phrase) ? '\\b' : '(?<![a-z0-9_])';
  const end = /\w$/.test(phrase) ? '\\b' : '(?![a-z0-9_])';
  return `${start}${body}${end}`;
}

const patterns = new Map<string, string>();

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
    this.regex = unique.length > 0 ? new RegExp(unique.map((p) => patterns.get(p) ?? phrasePattern(p)).join('|'), 'g') : null;
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
