// Code as the reveal check reads it: a language's tokens, comments dropped, each name marked where the code
// binds it (a parameter, an assignment's target, a loop variable, a declaration), so that names a student
// may choose can be told from the names of the language and its libraries.

export type CodeLanguage = 'python' | 'javascript' | 'typescript' | 'c' | 'sql';

export interface CodeToken {
  text: string;
  /** name: an identifier a program may choose or call; literal: a string or number; other: keywords, operators, punctuation. */
  kind: 'name' | 'literal' | 'other';
  /** Where the code binds this name (kind name only). */
  bound: boolean;
  /** Offsets (UTF-16) in the text read, end exclusive, and the 1-based line. */
  start: number;
  end: number;
  line: number;
}

/** Reads code of a language into tokens; `errors` counts the parts the grammar could not read. */
export interface CodeTokenizer {
  tokens(code: string, language: CodeLanguage): { tokens: CodeToken[]; errors: number };
}

/** The normal form of a literal: a string without its quotes (Python's 'a' is JavaScript's "a"), a number as written. */
export function literalForm(text: string): string {
  const m = /^[rbfuRBFU]{0,2}(['"`]{1,3})([\s\S]*)\1$/.exec(text);
  return m ? `"${m[2]}"` : text;
}

/** Each match of `re` (global) in `text`, with the 1-based line it starts on. */
export function* matchesWithLines(text: string, re: RegExp): Generator<{ match: RegExpExecArray; line: number }> {
  let line = 1;
  let from = 0;
  for (const match of text.matchAll(re)) {
    for (let i = from; i < match.index; i++) if (text.charCodeAt(i) === 10) line++;
    from = match.index;
    yield { match, line };
  }
}
