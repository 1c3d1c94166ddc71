/**
 * Does a candidate tutor turn hand over the solution? The verifier's `reveals_answer` dimension learned
 * MRBench's math answers and misses a coding tutor pasting the reference code, so these checks read the
 * candidate against the task's own reference: code that reproduces part of `reference_code` (compared as
 * token shingles with local names made anonymous, so renaming variables or reformatting does not hide it),
 * a solution step stated as the thing to do, or an answer stated outright. Each finding names the span of
 * the candidate that did it.
 */

/** What gave the solution away, and where in the candidate (UTF-16 offsets, end exclusive). */
export interface Reveal {
  kind: 'reference_code' | 'solution_step' | 'stated_answer';
  span: [number, number];
  /** reference_code: the share of the reference's shingles the candidate reproduces, or of the candidate's code found in the reference (the larger); solution_step: the share of the step's content words stated; stated_answer: 1. */
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

// Python's keywords and the builtins a solution is written with: kept as themselves, every other name is "ID".
const KEPT = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except finally for from global if import in is ' +
    'lambda nonlocal not or pass raise return try while with yield len range enumerate zip sum min max sorted list dict set tuple str ' +
    'int float bool print isinstance map filter any all abs open super self'
  ).split(' '),
);
const TOKEN = /[A-Za-z_][A-Za-z_0-9]*|\d+(?:\.\d+)?|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|==|!=|<=|>=|\*\*|\/\/|->|[-+*/%=<>()[\]{}:,.@&|^~]/g;
const SHINGLE = 5;

interface CodeToken {
  norm: string;
  start: number;
  end: number;
}

/**
 * Tokens of code, comments dropped; a name is kept when it is a keyword, a builtin or an attribute (`.where`,
 * an API a student would not rename), else anonymised; strings and numbers keep their text.
 */
function codeTokens(code: string, offset = 0): CodeToken[] {
  const out: CodeToken[] = [];
  const text = code.replace(/#[^\n]*/g, (c) => ' '.repeat(c.length));
  for (const m of text.matchAll(TOKEN)) {
    const t = m[0];
    const prev = out.at(-1)?.norm;
    const name = /^[A-Za-z_]/.test(t);
    const norm = name && !KEPT.has(t) && prev !== '.' ? 'ID' : t;
    out.push({ norm, start: offset + m.index, end: offset + m.index + t.length });
  }
  return out;
}

const shingles = (tokens: readonly CodeToken[]): string[] =>
  tokens.length < SHINGLE
    ? []
    : Array.from({ length: tokens.length - SHINGLE + 1 }, (_, i) =>
        tokens
          .slice(i, i + SHINGLE)
          .map((t) => t.norm)
          .join(' '),
      );

/** The candidate's code: fenced blocks and inline `code` spans, with their offsets; the whole text too when it has no block but reads as code. */
function codeParts(candidate: string): Array<{ text: string; offset: number }> {
  const parts: Array<{ text: string; offset: number }> = [];
  for (const m of candidate.matchAll(/```[A-Za-z0-9_+-]*\n?([\s\S]*?)(?:```|$)/g)) {
    parts.push({ text: m[1]!, offset: m.index + m[0].indexOf(m[1]!) });
  }
  const fenced = parts.length > 0;
  const outside = candidate.replace(/```[\s\S]*?(?:```|$)/g, (b) => ' '.repeat(b.length));
  for (const m of outside.matchAll(/`([^`\n]+)`/g)) parts.push({ text: m[1]!, offset: m.index + 1 });
  // Code pasted bare (its strings may hold `inline` spans of their own).
  if (!fenced && /^\s*(def |return |for |if |import |\w+\s*=[^=])/m.test(candidate)) parts.push({ text: candidate, offset: 0 });
  return parts;
}

// Below these a shared run of tokens is a common idiom, not the solution: a candidate's code must reproduce
// this share of the reference, or be this much the reference's own and this long.
const COVERAGE = 0.4;
const CONTAINMENT = 0.8;
const MIN_TOKENS = 10;

function referenceCode(candidate: string, reference: string, given: string): Reveal | null {
  const known = new Set(shingles(codeTokens(given)));
  const ref = new Set(shingles(codeTokens(reference)).filter((s) => !known.has(s)));
  if (ref.size === 0) return null;
  let best: Reveal | null = null;
  const found = new Set<string>();
  for (const part of codeParts(candidate)) {
    const tokens = codeTokens(part.text, part.offset);
    const own = shingles(tokens);
    let inRef = 0;
    let first = -1;
    let last = -1;
    own.forEach((s, i) => {
      if (!ref.has(s)) return;
      inRef++;
      found.add(s);
      if (first < 0) first = i;
      last = i + SHINGLE - 1;
    });
    if (inRef === 0) continue;
    const containment = inRef / own.length;
    const coverage = found.size / ref.size;
    const reveals = coverage >= COVERAGE || (containment >= CONTAINMENT && tokens.length >= MIN_TOKENS);
    const overlap = Math.max(coverage, containment);
    if (reveals && (best === null || overlap > best.overlap)) {
      best = { kind: 'reference_code', span: [tokens[first]!.start, tokens[last]!.end], overlap };
    }
  }
  return best;
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
  for (const m of candidate.matchAll(/[^.!?\n]+[.!?]?/g)) {
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

// "The answer is [1, 3, 6]", "here is the complete solution", "just copy this": the turn says it is giving the answer.
const STATED =
  /\b(?:the\s+(?:correct\s+|right\s+|final\s+|full\s+|complete\s+)?(?:answer|result|output|solution|code)\s+(?:is|would be|should be)\s*[:=]?\s*[^\s?]|here\s+is\s+the\s+(?:complete\s+|full\s+|whole\s+|final\s+)?(?:solution|answer|code|implementation)|just\s+copy\b)/i;

// "Just write `return jnp.where(…)` and you are done": code handed over as all there is to do.
const DONE = /(?:and|then)\s+you(?:'re|\s+are)\s+done|that'?s\s+(?:it|all)\b|nothing\s+else\s+to\s+do/i;

function statedAnswer(candidate: string): Reveal | null {
  const done = DONE.exec(candidate);
  if (done && codeParts(candidate).length > 0) {
    const start = candidate.lastIndexOf('\n', candidate.indexOf('`')) + 1;
    return { kind: 'stated_answer', span: [start, done.index + done[0].length], overlap: 1 };
  }
  const m = STATED.exec(candidate);
  if (!m) return null;
  // The rest of the sentence (or the whole code block after it) is the answer given.
  const after = candidate.slice(m.index);
  const end = /```/.test(after) ? candidate.length : m.index + (after.search(/[.!?\n](\s|$)/) + 1 || after.length);
  return { kind: 'stated_answer', span: [m.index, end], overlap: 1 };
}

/** The strongest way `candidate` gives the solution away, or null. */
export function revealsSolution(candidate: string, task: RevealTask): Reveal | null {
  return (
    (task.reference_code ? referenceCode(candidate, task.reference_code, task.description ?? '') : null) ??
    statedAnswer(candidate) ??
    (task.solution_steps?.length ? solutionStep(candidate, task.solution_steps) : null)
  );
}

/**
 * The probability reported for `reveals_answer` once a check has found the solution given: at least 0.5, more
 * the more of it was given; the model's own when it is higher.
 */
export function revealProbability(model: number | undefined, reveal: Reveal | null): number | undefined {
  if (reveal === null) return model;
  const found = 0.5 + 0.5 * Math.min(1, reveal.overlap);
  return Math.max(model ?? 0, found);
}
