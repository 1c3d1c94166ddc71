// Where code sits in a dialogue turn, and which language it is.
import type { CodeLanguage, CodeTokenizer } from './tokens.js';

export interface CodePart {
  text: string;
  /** Offset (UTF-16) of the part in the turn. */
  offset: number;
  /** The fence's language tag, when the part is a fenced block that names one. */
  tag?: string;
  /** A fenced block or bare code, not an inline `span`. */
  block: boolean;
}

// A line that reads as code in any of the languages read: a definition, a statement keyword, an assignment, a query.
const CODE_LINE =
  /^\s*(?:def |class |return\b|for |while |if |elif |else\s*:|import |from \S+ import |function |const |let |var |#include|int |void |char |double |float |(?:select|with|insert|update|delete|create)\s|[\w.[\]]+\s*(?:[-+*/%]?=[^=]|\+\+|--)|\}|print\()/i;

/** The turn's code: fenced blocks and inline `code` spans; without a block, the run of lines that read as code. */
export function codeParts(turn: string): CodePart[] {
  const parts: CodePart[] = [];
  for (const m of turn.matchAll(/```([A-Za-z0-9_+-]*)[^\n]*\n?([\s\S]*?)(?:```|$)/g)) {
    parts.push({ text: m[2]!, offset: m.index + m[0].indexOf(m[2]!, 3 + m[1]!.length), ...(m[1] ? { tag: m[1].toLowerCase() } : {}), block: true });
  }
  const fenced = parts.length > 0;
  const outside = turn.replace(/```[\s\S]*?(?:```|$)/g, (b) => ' '.repeat(b.length));
  for (const m of outside.matchAll(/`([^`\n]+)`/g)) parts.push({ text: m[1]!, offset: m.index + 1, block: false });
  if (fenced) return parts;
  // Code pasted bare: the lines from the first that reads as code to the last.
  const lines = turn.split('\n');
  const code = lines.map((l) => CODE_LINE.test(l));
  const first = code.indexOf(true);
  if (first < 0) return parts;
  const last = code.lastIndexOf(true);
  const offset = lines.slice(0, first).reduce((n, l) => n + l.length + 1, 0);
  parts.push({ text: lines.slice(first, last + 1).join('\n'), offset, block: true });
  return parts;
}

const TAGS: Record<string, CodeLanguage> = {
  py: 'python',
  python: 'python',
  python3: 'python',
  js: 'javascript',
  javascript: 'javascript',
  node: 'javascript',
  jsx: 'javascript',
  ts: 'typescript',
  typescript: 'typescript',
  c: 'c',
  h: 'c',
  sql: 'sql',
  postgresql: 'sql',
  sqlite: 'sql',
  mysql: 'sql',
};
const QUERY = /^\s*(?:select|with|insert|update|delete|create)\b/i;

/**
 * The language of a task's code: a fence's tag when it names one, SQL when it reads as a query, else the
 * grammar that reads it with the fewest errors per token (Python first on a tie: the tasks are mostly Python).
 */
export function languageOf(tokenizer: CodeTokenizer, samples: readonly { text: string; tag?: string }[]): CodeLanguage {
  for (const s of samples) if (s.tag && TAGS[s.tag]) return TAGS[s.tag]!;
  const text = samples.map((s) => s.text).join('\n');
  if (QUERY.test(text)) return 'sql';
  let best: CodeLanguage = 'python';
  let fewest = Number.POSITIVE_INFINITY;
  for (const language of ['python', 'typescript', 'c'] as const) {
    const { tokens, errors } = tokenizer.tokens(text, language);
    const rate = errors / Math.max(1, tokens.length);
    if (rate < fewest) {
      fewest = rate;
      best = language;
    }
  }
  return best;
}
