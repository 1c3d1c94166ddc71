/**
 * sacrebleu's `13a` tokenizer (mteval-v13a.pl rules, as in sacrebleu 2.6.0) and the Python string
 * helpers it relies on, so that token boundaries match sacrebleu byte for byte.
 */

/**
 * Python's `str.isspace()` set (what `str.split()` / `str.rstrip()` with no argument use).
 * It differs from JS `\s`: it has U+001C–U+001F and U+0085 but not U+FEFF.
 */
const PY_WS = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_TOKEN_RE = new RegExp(`[^${PY_WS}]+`, 'g');
const PY_WS_CHAR_RE = new RegExp(`^[${PY_WS}]$`);

/** Python `text.split()` (no separator argument): runs of non-whitespace. */
export function pySplit(text: string): string[] {
  return text.match(PY_TOKEN_RE) ?? [];
}

/** Python `text.rstrip()` (no argument). */
export function pyRstrip(text: string): string {
  // Walk back char by char: an end-anchored regex would rescan a long string on every start position.
  let end = text.length;
  while (end > 0 && PY_WS_CHAR_RE.test(text[end - 1]!)) end--;
  return text.slice(0, end);
}

// mteval-v13a punctuation rules, applied in this order. The first class is the ASCII symbols
// { | } ~ [ \ ] ^ _ ` space ! " # $ % & ( ) * + : ; < = > ? @ / — i.e. everything printable except
// letters, digits, the apostrophe and , - . which the later rules treat by context.
const RULES: readonly (readonly [RegExp, string])[] = [
  [/([\x7b-\x7e\x5b-\x60\x20-\x26\x28-\x2b\x3a-\x40\x2f])/g, ' $1 '],
  [/([^0-9])([.,])/g, '$1 $2 '], // period/comma split off unless preceded by a digit
  [/([.,])([^0-9])/g, ' $1 $2'], // ... or unless followed by a digit
  [/([0-9])(-)/g, '$1 $2 '], // a dash after a digit
];

/** The 13a preprocessing before the regex rules: `<skipped>`, `-\n` joins, newlines, four entities. */
function normalize13a(line: string): string {
  let s = line.replaceAll('<skipped>', '').replaceAll('-\n', '').replaceAll('\n', ' ');
  if (s.includes('&')) {
    // sacrebleu's order: &amp; goes before &lt;/&gt;, so '&amp;lt;' is unescaped twice, to '<'.
    s = s.replaceAll('&quot;', '"').replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>');
  }
  return s;
}

/** The tokens of `tokenize13a(text)`, without joining them back into a string. */
export function tokens13a(text: string): string[] {
  let s = ` ${normalize13a(text)} `;
  // JS global replace scans left to right without overlap, exactly like Python's re.sub.
  for (const [re, rep] of RULES) s = s.replace(re, rep);
  return pySplit(s);
}

/**
 * sacrebleu's `Tokenizer13a()(text)`: the tokens joined by single spaces. sacrebleu's BLEU calls
 * it on `text.rstrip()`; this function does not strip (it matters for a trailing `-\n`).
 */
export function tokenize13a(text: string): string {
  return tokens13a(text).join(' ');
}
