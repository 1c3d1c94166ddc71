import type { Plan } from '../../contracts/plan.js';
import type { Profile } from '../../contracts/profile.js';
import { isStopword, WordRuns } from '../gaming/text.js';
import { profileItems, profileText } from '../personalization/profile-text.js';
import { averagePlan } from './background.js';
import { MEANING } from './thresholds.js';
import { type WordTable, wordTable } from './word-vectors.js';
import { contentRows, dot, isNumber, meanOf, plainWordsOf, unit, wordsOf } from './words.js';

// What a step says about this question (docs/rewards.md §11): its words' meanings (the word table) placed
// against the query and against the average plan. Plain on purpose: one function per measure, each word
// looked at once, so the definition reads as written.

/** What the meaning of a group's steps is measured against: built once per group. */
export interface MeaningContext {
  /** Unit vector of the query's content words; null without a query, or with none the table knows. */
  query: Float32Array | null;
  /** cos(average plan, query): how near the query any tutoring plan is (§11a). */
  generic: number;
  /** Table rows of the query's words: a step repeating them says nothing new. */
  queryRows: ReadonlySet<number>;
  /** Table rows of the profile's items: named, they are personalization, credited on their own axis. */
  profileRows: ReadonlySet<number>;
  /** Words the client gave (query, profile, reference): real words even when the table lacks them. */
  given: ReadonlySet<string>;
  /** The query's numbers: a number the plan holds besides these, it worked out. */
  queryNumbers: ReadonlySet<string>;
  /** Runs of the query's and the profile's words: text pasted from them says nothing of the plan's own (§11c). */
  pastedRuns: WordRuns;
  /** The same over their words as written, identifiers whole (`own`). */
  pastedPlainRuns: WordRuns;
  /**
   * §11j: the reference's content words beyond the query's: those the table has (rows), and the numbers and
   * names it has not (`upload_to_texture` is "upload", "to", "texture"; `glTexSubImage2D` has a name or two).
   */
  reference: { rows: ReadonlySet<number>; names: ReadonlySet<string>; weight: number } | null;
}

/** What one step's text says, as the guarded reward reads it. */
export interface StepMeaning {
  /** Content words the table knows: not grammar, generic tutoring words, phase cues or profile items. */
  words: number;
  /** Numbers the query does not hold: results the step worked out (12 / 4 = 3). */
  numbers: number;
  /** Words that are no word: in neither the table nor anything the client gave. */
  invented: string[];
  /**
   * §11b: how much nearer the query the step is than a plan about nothing in particular. A calculation, too
   * few words to read alone but two numbers or more the query does not hold, is read as part of its plan: it
   * takes the plan's (§11f).
   */
  specificity: number;
}

export function meaningContext(query: string | null | undefined, profile: Profile | undefined, reference?: readonly string[]): MeaningContext {
  const t = wordTable();
  const queryRows = query ? contentRows(query, t) : [];
  const q = meanOf(queryRows, t);
  const profileRows = new Set(profileItems(profile).flatMap((item) => contentRows(item, t)));
  const given = new Set<string>();
  for (const text of [query ?? '', profileText(profile), ...(reference ?? [])]) for (const { word } of wordsOf(text)) given.add(word);
  const own = new Set(queryRows);
  const queryWords = wordsOf(query ?? '').map((w) => w.word);
  const queryNumbers = new Set(queryWords.filter(isNumber));
  const pastedRuns = new WordRuns(MEANING.copiedRun);
  const pastedPlainRuns = new WordRuns(MEANING.copiedRun);
  for (const line of [query ?? '', ...profileText(profile).split('\n')]) {
    pastedRuns.addAll(wordsOf(line).map((w) => w.word));
    pastedPlainRuns.addAll(plainWordsOf(line));
  }
  const referenceRows = new Set((reference ?? []).flatMap((text) => contentRows(text, t)).filter((r) => !own.has(r) && !profileRows.has(r)));
  const asked = new Set(queryWords);
  const names = new Set(
    (reference ?? []).flatMap((text) =>
      wordsOf(text)
        .filter((w) => !w.cue && !asked.has(w.word) && isName(w.word, t))
        .map((w) => w.word),
    ),
  );
  // A number or a name is weighed as the rarest word (§11g).
  let weight = names.size;
  for (const r of referenceRows) weight += t.weight(r);
  return {
    query: q,
    pastedRuns,
    pastedPlainRuns,
    // §11a: how near the query a plan about nothing in particular is.
    generic: q === null ? 0 : dot(averagePlan(), q),
    queryRows: own,
    profileRows,
    given,
    queryNumbers,
    reference: weight > 0 ? { rows: referenceRows, names, weight } : null,
  };
}

/**
 * §11b: specificity of a unit vector v, cos(v, q) − cos(average plan, q): above 0, v is nearer the query than
 * a plan about nothing in particular is. 0 without a query.
 */
function specificity(v: Float32Array | null, ctx: MeaningContext): number {
  return v === null || ctx.query === null ? 0 : dot(v, ctx.query) - ctx.generic;
}

/** A text's words as written but those in a run pasted from the query or the profile (§11c), space-separated. */
export function ownText(text: string, ctx: MeaningContext): string {
  const words = plainWordsOf(text);
  const pasted = new Uint8Array(words.length);
  for (let i = 0; i + MEANING.copiedRun <= words.length; i++) if (ctx.pastedPlainRuns.has(words, i)) pasted.fill(1, i, i + MEANING.copiedRun);
  return words.filter((_, i) => !pasted[i]).join(' ');
}

/** A number the query does not hold, or a word the table has not (not grammar): what only this plan's answer names. */
const isName = (word: string, t: WordTable) => isNumber(word) || (!isStopword(word) && word.length >= 3 && t.row(word) < 0);

/** A step's text: its instruction and expected output. */
export const stepText = (s: Plan['steps'][number]) => (s.expected_output ? `${s.instruction}\n${s.expected_output}` : s.instruction);

/**
 * The words of one step's text: its content words' rows go into `rows`, the numbers the query does not hold into
 * `numbers` (the plan's, for §11g) and the words the table has not into `names` (§11j); its specificity is its
 * words' alone, before §11b's rule for short steps.
 */
function readStep(text: string, ctx: MeaningContext, rows: number[], numbers: Set<string>, names: Set<string>, sum: Float32Array): StepMeaning {
  const t = wordTable();
  const start = rows.length;
  const invented: string[] = [];
  const words = wordsOf(text);
  const plain = words.map((w) => w.word);
  // §11c: words in a run pasted from the query or the profile are not the step's own.
  const pasted = new Uint8Array(words.length);
  for (let i = 0; i + MEANING.copiedRun <= words.length; i++) if (ctx.pastedRuns.has(plain, i)) pasted.fill(1, i, i + MEANING.copiedRun);
  let stepNumbers = 0;
  for (const [i, { word, cue }] of words.entries()) {
    if (pasted[i]) continue;
    if (isNumber(word)) {
      if (!ctx.queryNumbers.has(word)) {
        numbers.add(word);
        stepNumbers++;
      }
      continue;
    }
    if (isStopword(word)) continue;
    const r = t.row(word);
    if (r < 0) {
      if (!cue) names.add(word);
      // §11c: an invented word earns nothing, and says so; a name with a digit in it (boto3, utf8) is an identifier.
      if (!cue && !ctx.given.has(word) && word.length >= MEANING.inventedMinLength && !/[0-9]/.test(word) && !t.known(word)) invented.push(word);
      continue;
    }
    if (cue || ctx.profileRows.has(r)) continue;
    rows.push(r);
  }
  // The step's weighted sum of rows, added to the plan's (§11f) before it is made a unit vector of its own.
  const v = new Float32Array(t.dims);
  for (let k = start; k < rows.length; k++) t.addRow(v, rows[k]!, t.weight(rows[k]!));
  for (let k = 0; k < v.length; k++) sum[k]! += v[k]!;
  return { words: rows.length - start, numbers: stepNumbers, invented, specificity: specificity(unit(v), ctx) };
}

/** What a plan's steps say about the question: each step's meaning, and what all of them say read as one text. */
export interface PlanMeaning {
  steps: StepMeaning[];
  /** §11f: many sentences say what one cannot: the plan's specificity is far steadier than a step's. */
  specificity: number;
  /** §11g: what the plan says beyond the query and the profile: Σ of the weights of its distinct new content words, and 1 a new number. */
  information: number;
  /** §11j: the weighted share of the reference's content words, numbers and names beyond the query's that the plan says; null without a reference. */
  coverage: number | null;
}

/** The plan's steps read as one text: the unit mean of their content words' rows (§11f); null with none. */
export function planVector(plan: Plan, ctx: MeaningContext): Float32Array | null {
  const sum = new Float32Array(wordTable().dims);
  for (const s of plan.steps) readStep(stepText(s), ctx, [], new Set(), new Set(), sum);
  return unit(sum);
}

export function readPlanMeaning(plan: Plan, ctx: MeaningContext): PlanMeaning {
  const t = wordTable();
  const rows: number[] = [];
  const numbers = new Set<string>();
  const names = new Set<string>();
  const sum = new Float32Array(t.dims);
  const steps = plan.steps.map((s) => readStep(stepText(s), ctx, rows, numbers, names, sum));
  const planSpecificity = specificity(unit(sum), ctx);
  for (const m of steps) if (m.words < MEANING.readableWords && m.numbers >= MEANING.calculationNumbers) m.specificity = planSpecificity;
  // A number the question does not hold is a result the plan worked out (12 / 4 = 3): as much information as the rarest word.
  let information = numbers.size;
  const distinct = new Set(rows);
  for (const r of distinct) if (!ctx.queryRows.has(r)) information += t.weight(r);
  let covered = 0;
  if (ctx.reference !== null) {
    for (const r of ctx.reference.rows) if (distinct.has(r)) covered += t.weight(r);
    for (const n of ctx.reference.names) if (numbers.has(n) || names.has(n)) covered++;
  }
  return { steps, specificity: planSpecificity, information, coverage: ctx.reference === null ? null : covered / ctx.reference.weight };
}

const ramp = (x: number, from: number, to: number) => Math.min(1, Math.max(0, (x - from) / (to - from)));

/** §11d: how far the step is about this question, from 0 (no more than about any other) to 1; 0 for a step too short to say. */
export const aboutness = (m: StepMeaning): number =>
  m.words >= MEANING.readableWords || m.numbers >= MEANING.calculationNumbers ? ramp(m.specificity, MEANING.specificity.from, MEANING.specificity.to) : 0;

/**
 * §11h: how far the plan as a whole is about this question and says something of its own about it, 0–1. With a
 * reference (§11j) what the plan should say is known, and its share of it stands in for both estimates.
 */
export const planAboutness = (m: PlanMeaning): number =>
  m.coverage !== null
    ? ramp(m.coverage, MEANING.referenceCoverage.from, MEANING.referenceCoverage.to)
    : ramp(m.specificity, MEANING.planSpecificity.from, MEANING.planSpecificity.to) *
      ramp(m.information, MEANING.planInformation.from, MEANING.planInformation.to);
