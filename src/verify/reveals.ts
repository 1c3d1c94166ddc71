/**
 * Does a candidate tutor turn hand over the solution? Read against what is known: the task's reference, the
 * student's own attempt in the dialogue, and what the student was given. What reveals the answer is the
 * *fix* — what the reference changes in the attempt — or the solution whole: code that writes the fix
 * (renamed, reformatted or rewritten around it), code that reproduces the reference beyond what the student
 * already has, a complete function for the task that is not the student's own, prose that names the line and
 * the change, or a solution step stated as what to do. Code that quotes the student is never the answer.
 * No wording is a trigger: the same code is judged the same whatever sentence introduces it. Each finding
 * names the span of the candidate that did it.
 */
import type { DialogueTurn } from '../contracts/verify-turn.js';
import { type CodePart, codeParts, languageOf } from './code/code-parts.js';
import { diffArrays } from 'diff';
import { findSignature, type FixHunk, fixOf, Names } from './code/fix.js';
import type { CodeLanguage, CodeToken, CodeTokenizer } from './code/tokens.js';
import { proseTokens } from './code/prose-tokens.js';

/** What gave the solution away, and where in the candidate (UTF-16 offsets, end exclusive). */
export interface Reveal {
  kind: 'fix' | 'changed_line' | 'fix_in_prose' | 'reference_code' | 'complete_code' | 'solution_step' | 'stated_answer';
  span: [number, number];
  /**
   * How much was given: fix and fix_in_prose, the share of the fix; reference_code, the share of the reference's
   * code beyond the student's that the candidate reproduces, or of the candidate's code found in it (the
   * larger); changed_line, complete_code and stated_answer, 1; solution_step, the share of the step's content words stated.
   */
  overlap: number;
  /** solution_step: which step (index in solution_steps). */
  step?: number;
}

export interface RevealTask {
  /** What the student was given (the signature and docstring): reproducing it gives nothing away. */
  description?: string | undefined;
  reference_code?: string | undefined;
  solution_steps?: readonly string[] | undefined;
}

interface Code {
  tokens: CodeToken[];
  norm: string[];
}

/** A request's task and dialogue, read once for all its candidates. */
export interface TaskReading {
  task: RevealTask;
  tokenizer: CodeTokenizer;
  language: CodeLanguage;
  names: Names;
  reference: Code | null;
  /** The student's latest code in the dialogue. */
  attempt: Code | null;
  /** Each line of it (1-based) read on its own, as a quote of it reads: normalized tokens. */
  attemptLines: Map<number, string[]>;
  given: Code | null;
  /** The reference's code beyond what the student was given or wrote, as shingles. */
  novel: Set<string>;
  fix: FixHunk[];
  /** The function the task asks for (a name the description or the attempt defines), if any. */
  functionName: string | null;
}

const SHINGLE = 5;
const shingles = (norm: readonly string[]): string[] =>
  norm.length < SHINGLE ? [] : Array.from({ length: norm.length - SHINGLE + 1 }, (_, i) => norm.slice(i, i + SHINGLE).join(' '));

/** The student's latest code: the blocks of the last student turn that has any, else its inline spans. */
function attemptParts(context: readonly DialogueTurn[]): CodePart[] {
  for (let i = context.length - 1; i >= 0; i--) {
    const turn = context[i]!;
    if (turn.role !== 'student') continue;
    const parts = codeParts(turn.text);
    const blocks = parts.filter((p) => p.block);
    if (blocks.length > 0) return blocks;
    if (parts.length > 0) return parts;
  }
  return [];
}

/** The first name `tokens` bind right before a `(`: a function's definition. */
function definedFunction(tokens: readonly CodeToken[]): string | null {
  for (let i = 0; i + 1 < tokens.length; i++) if (tokens[i]!.kind === 'name' && tokens[i]!.bound && tokens[i + 1]!.text === '(') return tokens[i]!.text;
  return null;
}

export function readTask(task: RevealTask, context: readonly DialogueTurn[], tokenizer: CodeTokenizer): TaskReading {
  const attemptCode = attemptParts(context);
  const descriptionParts = task.description ? codeParts(task.description) : [];
  const samples = [...(task.reference_code ? [{ text: task.reference_code }] : []), ...attemptCode, ...descriptionParts.filter((p) => p.block)];
  const language = samples.length > 0 ? languageOf(tokenizer, samples) : 'python';
  const read = (text: string) => tokenizer.tokens(text, language).tokens;
  const referenceTokens = task.reference_code ? read(task.reference_code) : null;
  const attemptText = attemptCode.map((p) => p.text).join('\n');
  const attemptTokens = attemptCode.length > 0 ? read(attemptText) : null;
  const givenText = descriptionParts.some((p) => p.block)
    ? descriptionParts
        .filter((p) => p.block)
        .map((p) => p.text)
        .join('\n')
    : task.description;
  const givenTokens = givenText ? read(givenText) : null;
  const names = new Names(...[referenceTokens, attemptTokens].filter((x): x is CodeToken[] => x !== null));
  const code = (tokens: CodeToken[] | null): Code | null => tokens && { tokens, norm: tokens.map((t) => names.norm(t)) };
  const reference = code(referenceTokens);
  const attempt = code(attemptTokens);
  const given = code(givenTokens);
  const known = new Set([...shingles(given?.norm ?? []), ...shingles(attempt?.norm ?? [])]);
  const attemptLines = new Map<number, string[]>();
  if (attempt) {
    attemptText.split('\n').forEach((line, i) => {
      const norm = read(line).map((t) => names.norm(t));
      if (norm.length > 0) attemptLines.set(i + 1, norm);
    });
  }
  return {
    task,
    tokenizer,
    language,
    names,
    reference,
    attempt,
    attemptLines,
    given,
    novel: new Set(shingles(reference?.norm ?? []).filter((s) => !known.has(s))),
    fix: reference && attempt ? fixOf(attempt.tokens, reference.tokens, names) : [],
    functionName: (givenTokens && definedFunction(givenTokens)) ?? (attemptTokens && definedFunction(attemptTokens)) ?? null,
  };
}

/** A candidate's code read once in the task's language, for every check: each part's tokens (offsets in the part) and normal forms. */
export interface CandidateReading {
  text: string;
  parts: Array<{ part: CodePart; tokens: CodeToken[]; norm: string[] }>;
}

export function readCandidate(text: string, r: TaskReading): CandidateReading {
  const parts = codeParts(text).map((part) => {
    const tokens = r.tokenizer.tokens(part.text, r.language).tokens;
    return { part, tokens, norm: tokens.map((t) => r.names.norm(t)) };
  });
  return { text, parts };
}

const asRead = (candidate: string | CandidateReading, r: TaskReading) => (typeof candidate === 'string' ? readCandidate(candidate, r) : candidate);

// A sentence of a turn, and a line of the student's code named in one.
const SENTENCE = /[^.!?\n]+[.!?]?/g;
const NAMED_LINE = /\blines?\s+(\d+)/gi;
const namedLines = (text: string): number[] => [...text.matchAll(NAMED_LINE)].map((m) => Number(m[1]));

/** The lines of the student's code (each read on its own) that hold `norm`, a quote of one or of part of one. */
function quotedLines(norm: readonly string[], r: TaskReading): number[] {
  const quote = ` ${norm.join(' ')} `;
  return [...r.attemptLines].filter(([, tokens]) => ` ${tokens.join(' ')} `.includes(quote)).map(([line]) => line);
}

// A hunk weighs its new tokens and one more, so that a deletion (no new token) still counts.
const hunkWeight = (h: FixHunk) => h.added.length + 1;
const fixWeight = (hunks: readonly FixHunk[]) => hunks.reduce((n, h) => n + hunkWeight(h), 0);
/** The fix's hunks that code can be matched against (those with a signature). */
const matchable = (r: TaskReading) => r.fix.filter((h): h is FixHunk & { signature: string[] } => h.signature !== null);
// The share of the fix's weight a turn must write to reveal it.
const FIX_SHARE = 0.5;

/** The fix written in the candidate's code (or in its text, read as code): the share of the fix's weight, and where. */
function writtenFix(r: TaskReading, c: CandidateReading): Reveal | null {
  const hunks = matchable(r);
  if (hunks.length === 0) return null;
  // Each part read in the task's language; the rest of the text read as prose, for code written without
  // backticks (read as prose, a part's comments and strings would be code too).
  const prose = proseTokens(blanked(c.text, c.parts));
  const readings = [
    ...c.parts.map(({ part, tokens, norm }) => ({ offset: part.offset, tokens, norm })),
    { offset: 0, tokens: prose, norm: prose.map((t) => r.names.norm(t)) },
  ].map(({ offset, tokens, norm }) => ({
    offset,
    tokens,
    // A hunk's signature in normal form, where "ID" is any name; or as written (exactNames), literals aside.
    normal: norm.map((form, i) => ({ form, name: tokens[i]!.kind === 'name' })),
    written: norm.map((form, i) => ({ form: tokens[i]!.kind === 'literal' ? form : tokens[i]!.text, name: false })),
  }));
  let found = 0;
  let span: [number, number] | null = null;
  for (const h of hunks) {
    for (const { offset, tokens, normal, written } of readings) {
      let at = findSignature(h.exactNames ? written : normal, h.signature);
      if (at < 0 && h.mirror) at = findSignature(written, h.mirror);
      if (at < 0) continue;
      found += hunkWeight(h);
      const [s, e] = [offset + tokens[at]!.start, offset + tokens[at + h.signature.length - 1]!.end];
      span = span ? [Math.min(span[0], s), Math.max(span[1], e)] : [s, e];
      break;
    }
  }
  const share = found / fixWeight(hunks);
  return share >= FIX_SHARE && span ? { kind: 'fix', span, overlap: share } : null;
}

// A line of the student's code with at most this share of its tokens changed is that line, corrected.
const CHANGED_SHARE = 0.34;
const MIN_LINE_TOKENS = 3;

/**
 * Without the reference the fix is unknown, but a line of the student's code handed back changed is a fix
 * proposed (right or wrong): the answer given, not a hint. Quoting the line, or a part of it, changes nothing.
 */
function changedLine(r: TaskReading, c: CandidateReading): Reveal | null {
  if (matchable(r).length > 0 || !r.attempt) return null;
  for (const { part, norm } of c.parts) {
    if (norm.length < MIN_LINE_TOKENS) continue;
    // A quote of any line (or of part of one) is the student's own code, however like another line it is.
    if (quotedLines(norm, r).length > 0) continue;
    for (const line of r.attemptLines.values()) {
      if (line.length < MIN_LINE_TOKENS) continue;
      let added = 0;
      let removed = 0;
      for (const d of diffArrays(line, norm)) {
        if (d.added) added += d.count!;
        else if (d.removed) removed += d.count!;
      }
      if (added > 0 && added + removed <= Math.max(2, CHANGED_SHARE * line.length) && norm.length >= line.length - 1) {
        return { kind: 'changed_line', span: [part.offset, part.offset + part.text.length], overlap: 1 };
      }
    }
  }
  return null;
}

// Below these a shared run of tokens is a common idiom, not the solution: a candidate's code must reproduce
// this share of the reference's code beyond the student's, or be this much the reference's own and this long.
const COVERAGE = 0.4;
const CONTAINMENT = 0.8;
const MIN_TOKENS = 10;

function referenceCode(r: TaskReading, c: CandidateReading): Reveal | null {
  if (r.novel.size === 0) return null;
  let best: Reveal | null = null;
  const found = new Set<string>();
  for (const { part, tokens, norm } of c.parts) {
    const own = shingles(norm);
    let inRef = 0;
    let first = -1;
    let last = -1;
    own.forEach((s, i) => {
      if (!r.novel.has(s)) return;
      inRef++;
      found.add(s);
      if (first < 0) first = i;
      last = i + SHINGLE - 1;
    });
    if (inRef === 0) continue;
    const containment = inRef / own.length;
    const coverage = found.size / r.novel.size;
    const reveals = coverage >= COVERAGE || (containment >= CONTAINMENT && tokens.length >= MIN_TOKENS);
    const overlap = Math.max(coverage, containment);
    if (reveals && (best === null || overlap > best.overlap)) {
      best = { kind: 'reference_code', span: [part.offset + tokens[first]!.start, part.offset + tokens[last]!.end], overlap };
    }
  }
  return best;
}

// A definition with fewer tokens than this past what the student was given is a signature, not a solution.
const MIN_BODY_TOKENS = 8;
const QUERY_START = new Set(['SELECT', 'WITH']);

/** A complete function for the task (a query, in SQL) that is neither the student's attempt nor what they were given. */
function completeCode(r: TaskReading, c: CandidateReading): Reveal | null {
  for (const { part, tokens, norm } of c.parts) {
    if (!part.block) continue;
    if (r.attempt && norm.join(' ') === r.attempt.norm.join(' ')) continue;
    const complete =
      r.language === 'sql'
        ? QUERY_START.has(tokens[0]?.text ?? '') && tokens.some((t) => t.text === 'FROM') && tokens.length >= MIN_BODY_TOKENS
        : r.functionName !== null &&
          tokens.some((t, i) => t.bound && t.text === r.functionName && tokens[i + 1]?.text === '(') &&
          tokens.length - (r.given?.tokens.length ?? 0) >= MIN_BODY_TOKENS;
    if (complete) return { kind: 'complete_code', span: [part.offset, part.offset + part.text.length], overlap: 1 };
  }
  return null;
}

// How prose says a token of a fix: an operator or a small number in words.
const SAID: Record<string, RegExp> = {
  '+': /\+|\bplus\b|\badd/i,
  '-': /-|\bminus\b|\bsubtract/i,
  '*': /\*|\btimes\b|\bmultipl/i,
  '/': /\/|\bdivid/i,
  '<': /<|\bless than\b|\bbelow\b/i,
  '<=': /<=|\bless than or equal|\bat most\b/i,
  '>': />|\bgreater than\b|\babove\b/i,
  '>=': />=|\bgreater than or equal|\bat least\b/i,
  '==': /==|\bequals?\b/i,
  '!=': /!=|\bnot equal/i,
  '0': /\b(?:0|zero)\b/i,
  '1': /\b(?:1|one)\b/i,
  '2': /\b(?:2|two)\b/i,
  '3': /\b(?:3|three)\b/i,
};
const KEYWORD = /^[A-Za-z_]\w*$/;
const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A sentence that names a line the fix changes and says each of the fix's new tokens there. */
function fixInProse(r: TaskReading, candidate: string): Reveal | null {
  if (r.fix.length === 0) return null;
  for (const m of candidate.matchAll(SENTENCE)) {
    const sentence = m[0];
    const lines = namedLines(sentence);
    if (lines.length === 0) continue;
    for (const h of r.fix) {
      if (!h.lines.some((l) => lines.includes(l))) continue;
      // A keyword (`True`, `or`) is said as code: as a word it is English too.
      const said = h.added.filter((t) => t.kind !== 'other' || SAID[t.text] || KEYWORD.test(t.text));
      if (said.length === 0) continue;
      const all = said.every((t) =>
        (SAID[t.text] ?? new RegExp(t.kind === 'other' ? `\`\\s*${escaped(t.text)}\\s*\`` : `(?<![\\w.])${escaped(t.text)}(?![\\w])`)).test(sentence),
      );
      if (all) return { kind: 'fix_in_prose', span: [m.index, m.index + sentence.length], overlap: hunkWeight(h) / fixWeight(r.fix) };
    }
  }
  return null;
}

const WORD = /[a-z0-9]+/g;
// Function words carry no step content: a step is stated when its content words are.
const STOP = new Set(
  'a an the of to in on at for by with and or but is are be it its this that these those as from into so then than if each every all any you your we our their them they i me my'.split(
    ' ',
  ),
);
const contentWords = (s: string) => new Set((s.toLowerCase().match(WORD) ?? []).filter((w) => !STOP.has(w)));
const STEP_SHARE = 0.8;
const MIN_STEP_WORDS = 3;

/** A sentence of the candidate that states a solution step (not as a question): the step's content words, nearly all. */
function solutionStep(candidate: string, steps: readonly string[]): Reveal | null {
  let best: Reveal | null = null;
  for (const m of candidate.matchAll(SENTENCE)) {
    const sentence = m[0];
    if (sentence.trim().endsWith('?')) continue; // a guiding question may name what to do next
    const words = contentWords(sentence);
    steps.forEach((step, k) => {
      const want = contentWords(step);
      if (want.size < MIN_STEP_WORDS) return;
      let hit = 0;
      for (const w of want) if (words.has(w)) hit++;
      const share = hit / want.size;
      if (share >= STEP_SHARE && (best === null || share > best.overlap)) {
        const start = m.index + (sentence.length - sentence.trimStart().length);
        best = { kind: 'solution_step', span: [start, m.index + sentence.trimEnd().length], overlap: share, step: k };
      }
    });
  }
  return best;
}

// "The answer is [1, 3, 6]": a value announced as the answer, in a turn without code (code is judged by what it holds).
const STATED = /\bthe\s+(?:correct\s+|right\s+|final\s+)?(?:answer|result|output)\s+(?:is|would be|should be)\s*[:=]?\s*[^\s?]/i;

function statedAnswer(candidate: string): Reveal | null {
  const m = STATED.exec(candidate);
  if (!m) return null;
  const after = candidate.slice(m.index);
  return { kind: 'stated_answer', span: [m.index, m.index + (after.search(/[.!?\n](\s|$)/) + 1 || after.length)], overlap: 1 };
}

/** The strongest way `candidate` gives the solution away, or null. */
export function revealsSolution(candidate: string | CandidateReading, reading: TaskReading): Reveal | null {
  const c = asRead(candidate, reading);
  return (
    writtenFix(reading, c) ??
    referenceCode(reading, c) ??
    completeCode(reading, c) ??
    changedLine(reading, c) ??
    fixInProse(reading, c.text) ??
    (c.parts.length === 0 ? statedAnswer(c.text) : null) ??
    (reading.task.solution_steps?.length ? solutionStep(withoutOwnCode(c, reading), reading.task.solution_steps) : null)
  );
}

/**
 * The candidate's text with the code that quotes the student's own (a line, part of one, or the whole, by
 * normal form) blanked out, offsets kept: what the student wrote, quoted back, states no step.
 */
function withoutOwnCode(c: CandidateReading, r: TaskReading): string {
  if (!r.attempt) return c.text;
  const attempt = ` ${r.attempt.norm.join(' ')} `;
  return blanked(
    c.text,
    c.parts.filter(({ norm }) => norm.length >= MIN_QUOTE_TOKENS && attempt.includes(` ${norm.join(' ')} `)),
  );
}

/** `text` with the code of `parts` replaced by spaces: the offsets of the rest stay where they were. */
function blanked(text: string, parts: readonly { part: CodePart }[]): string {
  let out = text;
  for (const { part } of parts) out = out.slice(0, part.offset) + ' '.repeat(part.text.length) + out.slice(part.offset + part.text.length);
  return out;
}

/** The lines of the student's latest code a candidate points at: by number ("line 3"), or by quoting one or part of one. */
function pointedLines(c: CandidateReading, r: TaskReading): Set<number> {
  const pointed = new Set(namedLines(c.text));
  for (const { norm } of c.parts) if (norm.length >= MIN_QUOTE_TOKENS) for (const line of quotedLines(norm, r)) pointed.add(line);
  return pointed;
}

/**
 * Where a candidate points with the fix known (it needs the reference and the student's code), by number or
 * by quoting: `misdirects`, the lines it points at when none is a line the fix changes (a hint aimed at the
 * wrong place, whatever its punctuation); `guides`, those lines when one of them is (a hint aimed at the
 * bug). Both null when it points nowhere or the fix is unknown.
 */
export function aimOf(candidate: string | CandidateReading, r: TaskReading): { misdirects: number[] | null; guides: number[] | null } {
  if (r.fix.length === 0 || !r.attempt) return { misdirects: null, guides: null };
  const pointed = pointedLines(asRead(candidate, r), r);
  if (pointed.size === 0) return { misdirects: null, guides: null };
  const fixed = new Set(r.fix.flatMap((h) => h.lines));
  const at = [...pointed].sort((a, b) => a - b);
  return at.some((l) => fixed.has(l)) ? { misdirects: null, guides: at } : { misdirects: at, guides: null };
}
// A quote shorter than this (`i`, `x + 1`) is not a line of the student's.
const MIN_QUOTE_TOKENS = 3;

/**
 * The probability reported for `reveals_answer` once a check has found the solution given: at least 0.5, more
 * the more of it was given; the model's own when it is higher.
 */
export function revealProbability(model: number | undefined, reveal: Reveal | null): number | undefined {
  if (reveal === null) return model;
  const found = 0.5 + 0.5 * Math.min(1, reveal.overlap);
  return Math.max(model ?? 0, found);
}
