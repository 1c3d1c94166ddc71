// A turn's whole text read as code, for code written into a sentence without backticks ("use range(n + 1)"):
// words, numbers, strings closed on their line, and operators, longest first. Prose's own apostrophes and
// punctuation only add tokens that no fix's signature holds.
import { type CodeToken, matchesWithLines } from './tokens.js';

const TOKEN = /[A-Za-z_][A-Za-z_0-9]*|\d+(?:\.\d+)?|"[^"\n]*"|'[^'\n]*'(?![A-Za-z])|\*\*=?|\/\/=?|<<=?|>>=?|[-+*/%<>=!&|^]=|==|&&|\|\||\+\+|--|->|=>|\S/g;

export function proseTokens(text: string): CodeToken[] {
  const tokens: CodeToken[] = [];
  for (const { match: m, line } of matchesWithLines(text, TOKEN)) {
    const t = m[0];
    const kind = /^[A-Za-z_]/.test(t) ? 'name' : /^["'\d]/.test(t) ? 'literal' : 'other';
    tokens.push({ text: t, kind, bound: false, start: m.index, end: m.index + t.length, line });
  }
  return tokens;
}
