// SQL's tokens, by hand: no maintained tree-sitter SQL grammar ships a .wasm, and the SQL parsers on npm
// reject a student's broken query outright, while its words are easy to read one by one. Keywords are upper
// case (SQL does not care), names lower case unless quoted; an alias (`AS x`, `FROM t x`) is a bound name.
import { type CodeToken, matchesWithLines } from './tokens.js';

const KEYWORDS = new Set(
  (
    'select from where group by having order asc desc limit offset join inner left right full outer cross on using as and or not in is null ' +
    'like between exists case when then else end distinct all union intersect except insert into values update set delete create table ' +
    'view index drop alter add primary key foreign references with recursive over partition count sum avg min max coalesce cast true false'
  ).split(' '),
);
const TOKEN =
  /--[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|'(?:[^']|'')*'?|"(?:[^"]|"")*"?|`[^`]*`?|\d+(?:\.\d+)?(?:e[+-]?\d+)?|[A-Za-z_][A-Za-z_0-9$]*|<>|!=|<=|>=|\|\||::|\S/gi;

/** The tokens of SQL text; a quote left open is read to the end and counted as an error. */
export function sqlTokens(code: string): { tokens: CodeToken[]; errors: number } {
  const tokens: CodeToken[] = [];
  let errors = 0;
  for (const { match: m, line } of matchesWithLines(code, TOKEN)) {
    const raw = m[0];
    const at = { start: m.index, end: m.index + raw.length, line };
    if (raw.startsWith('--') || raw.startsWith('/*')) continue;
    if (raw.startsWith("'")) {
      if (raw.length < 2 || !raw.endsWith("'")) errors++;
      tokens.push({ text: raw, kind: 'literal', bound: false, ...at });
    } else if (/^\d/.test(raw)) {
      tokens.push({ text: raw, kind: 'literal', bound: false, ...at });
    } else if (/^[A-Za-z_"`]/.test(raw)) {
      const quoted = raw.startsWith('"') || raw.startsWith('`');
      if (quoted && (raw.length < 2 || raw.at(-1) !== raw[0])) errors++;
      const word = quoted ? raw.slice(1, -1) : raw.toLowerCase();
      if (!quoted && KEYWORDS.has(word)) {
        tokens.push({ text: word.toUpperCase(), kind: 'other', bound: false, ...at });
      } else {
        const prev = tokens.at(-1);
        // `AS x`, or a name right after a table name (`FROM orders o`).
        const bound = prev !== undefined && (prev.text === 'AS' || (prev.kind === 'name' && tokens.at(-2)?.text !== '.'));
        tokens.push({ text: word, kind: 'name', bound, ...at });
      }
    } else {
      tokens.push({ text: raw, kind: 'other', bound: false, ...at });
    }
  }
  return { tokens, errors };
}
