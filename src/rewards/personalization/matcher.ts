// Whole-word, case-insensitive phrase matching shared by profile-signal extraction and plan-text search.
// A space, hyphen or underscore inside a phrase matches any run of those separators.

export function normalizePhrase(text: string): string {
  return text.toLowerCase().trim().replace(/[\s_-]+/g, ' ');
}

function phrasePattern(phrase: string): string {
  return normalizePhrase(phrase)
    .split(' ')
    .map((w) => w.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('[\\s_-]+');
}

/** One compiled alternation over many phrases; `scan` returns the normalized phrases found in a text. */
export class PhraseMatcher {
  private readonly regex: RegExp | null;

  constructor(phrases: Iterable<string>) {
    const unique = [...new Set([...phrases].map(normalizePhrase))].filter((p) => p.length > 0);
    // Longest first, so "ruby on rails" wins over "ruby" at the same position.
    unique.sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    this.regex = unique.length > 0 ? new RegExp(`(?<![a-z0-9_])(?:${unique.map(phrasePattern).join('|')})(?![a-z0-9_])`, 'gi') : null;
  }

  scan(text: string): Set<string> {
    const found = new Set<string>();
    if (!this.regex) return found;
    for (const m of text.matchAll(this.regex)) found.add(normalizePhrase(m[0]));
    return found;
  }
}
