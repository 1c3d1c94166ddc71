// Whole-word, case-insensitive phrase matching shared by profile-signal extraction and plan-text search.
// A space, hyphen or underscore inside a phrase matches any run of those separators.

const SEPARATOR = /[\s_-]/;

export function normalizePhrase(text: string): string {
  return text.toLowerCase().trim().replace(/[\s_-]+/g, ' ');
}

// Whole words: \b where the phrase starts or ends with a word character (fast), lookaround where it
// starts or ends with a symbol ("c++", ".net").
function phrasePattern(phrase: string): string {
  const p = normalizePhrase(phrase);
  const body = p
    .split(' ')
    .map((w) => w.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('[\\s_-]+');
  const start = /^\w/.test(p) ? '\\b' : '(?<![a-z0-9_])';
  const end = /\w$/.test(p) ? '\\b' : '(?![a-z0-9_])';
  return `${start}${body}${end}`;
}

/** One compiled alternation over many phrases; `scan` returns the normalized phrases found in a text. */
export class PhraseMatcher {
  private readonly regex: RegExp | null;

  constructor(phrases: Iterable<string>) {
    const unique = [...new Set([...phrases].map(normalizePhrase))].filter((p) => p.length > 0);
    // Longest first, so "ruby on rails" wins over "ruby" at the same position.
    unique.sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    this.regex = unique.length > 0 ? new RegExp(unique.map(phrasePattern).join('|'), 'g') : null;
  }

  /** `text` must already be lowercased (callers lowercase once per text, not once per phrase). */
  scan(text: string): Set<string> {
    const found = new Set<string>();
    const re = this.regex;
    if (!re) return found;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) found.add(SEPARATOR.test(m[0]) ? normalizePhrase(m[0]) : m[0]);
    return found;
  }
}
