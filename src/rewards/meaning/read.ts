import type { Plan } from '../../contracts/plan.js';
import type { Profile } from '../../contracts/profile.js';
import { isStopword, WordRuns } from '../gaming/text.js';
import { profileItems, profileText } from '../personalization/profile-text.js';
import { averagePlan } from './background.js';
import { MEANING } from './thresholds.js';
import { wordTable } from './word-vectors.js';
import { contentRows, dot, isNumber, meanOf, wordsOf } from './words.js';

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
  /** Runs of the query's words: text pasted from the query says nothing of the plan's own (§11c). */
  queryRuns: WordRuns;
  /** §11j: the reference's content words (rows) and numbers beyond the query's, and their summed weight; null without a reference. */
  reference: { rows: ReadonlySet<number>; numbers: ReadonlySet<string>; weight: number } | null;
}

/** What one step's text says, as the guarded reward reads it. */
export interface StepMeaning {
  /** Content words the table knows: not grammar, generic tutoring words, phase cues or profile items. */
  words: number;
  /** Words that are no word: in neither the table nor anything the client gave. */
  invented: string[];
  /**
   * §11b: how much nearer the query the step is than a plan about nothing in particular. A step of
   * fewer words than can be read alone (a calculation, "Recap.") is read as part of its plan: it takes the plan's (§11f).
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
  const queryNumbers = new Set(
    wordsOf(query ?? '')
      .map((w) => w.word)
      .filter(isNumber),
  );
  const referenceRows = new Set((reference ?? []).flatMap((text) => contentRows(text, t)).filter((r) => !own.has(r) && !profileRows.has(r)));
  const referenceNumbers = new Set((reference ?? []).flatMap((text) => wordsOf(text).map((w) => w.word)).filter((w) => isNumber(w) && !queryNumbers.has(w)));
  // A number is weighed as the rarest word (§11g).
  let weight = referenceNumbers.size;
  for (const r of referenceRows) weight += t.weight(r);
  const queryRuns = new WordRuns(MEANING.copiedRun);
  queryRuns.addAll(wordsOf(query ?? '').map((w) => w.word));
  return {
    query: q,
    queryRuns,
    // §11a: how near the query a plan about nothing in particular is.
    generic: q === null ? 0 : dot(averagePlan(), q),
    queryRows: own,
    profileRows,
    given,
    queryNumbers,
    reference: weight > 0 ? { rows: referenceRows, numbers: referenceNumbers, weight } : null,
  };
}

/**
 * §11b: specificity of a unit vector v, cos(v, q) − cos(average plan, q): above 0, v is nearer the query than
 * a plan about nothing in particular is. 0 without a query.
 */
function specificity(v: Float32Array | null, ctx: MeaningContext): number {
  return v === null || ctx.query === null ? 0 : dot(v, ctx.query) - ctx.generic;
}

/** A step's text: its instruction and expected output. */
const stepText = (s: Plan['steps'][number]) => (s.expected_output ? `${s.instruction}\n${s.expected_output}` : s.instruction);

/**
 * The words of one step's text: its content words' rows go into `rows` and the numbers the query does not hold
 * into `numbers` (the plan's, for §11g); its specificity is its words' alone, before §11b's rule for short steps.
 */
function readStep(text: string, ctx: MeaningContext, rows: number[], numbers: Set<string>): StepMeaning {
  const t = wordTable();
  const start = rows.length;
  const invented: string[] = [];
  const words = wordsOf(text);
  const plain = words.map((w) => w.word);
  // §11c: words in a run pasted from the query are not the step's own.
  const pasted = new Uint8Array(words.length);
  for (let i = 0; i + MEANING.copiedRun <= words.length; i++) if (ctx.queryRuns.has(plain, i)) pasted.fill(1, i, i + MEANING.copiedRun);
  for (const [i, { word, cue }] of words.entries()) {
    if (pasted[i]) continue;
    if (isNumber(word)) {
      if (!ctx.queryNumbers.has(word)) numbers.add(word);
      continue;
    }
    if (isStopword(word)) continue;
    const r = t.row(word);
    if (r < 0) {
      // §11c: an invented word earns nothing, and says so; a name with a digit in it (boto3, utf8) is an identifier.
      if (!cue && !ctx.given.has(word) && word.length >= MEANING.inventedMinLength && !/[0-9]/.test(word) && !t.known(word)) invented.push(word);
      continue;
    }
    if (cue || ctx.profileRows.has(r)) continue;
    rows.push(r);
  }
  const own = rows.slice(start);
  return { words: own.length, invented, specificity: specificity(meanOf(own, t), ctx) };
}

/** What a plan's steps say about the question: each step's meaning, and what all of them say read as one text. */
export interface PlanMeaning {
  steps: StepMeaning[];
  /** §11f: many sentences say what one cannot: the plan's specificity is far steadier than a step's. */
  specificity: number;
  /** §11g: what the plan says beyond the query and the profile: Σ of the weights of its distinct new content words, and 1 a new number. */
  information: number;
  /** §11j: the weighted share of the reference's content words beyond the query's that the plan says; null without a reference. */
  coverage: number | null;
}

/** The plan's steps read as one text: the unit mean of their content words' rows (§11f); null with none. */
export function planVector(plan: Plan, ctx: MeaningContext): Float32Array | null {
  const rows: number[] = [];
  for (const s of plan.steps) readStep(stepText(s), ctx, rows, new Set());
  return meanOf(rows, wordTable());
}

export function readPlanMeaning(plan: Plan, ctx: MeaningContext): PlanMeaning {
  const t = wordTable();
  const rows: number[] = [];
  const numbers = new Set<string>();
  const steps = plan.steps.map((s) => readStep(stepText(s), ctx, rows, numbers));
  const planSpecificity = specificity(meanOf(rows, t), ctx);
  for (const m of steps) if (m.words < MEANING.readableWords) m.specificity = planSpecificity;
  // A number the question does not hold is a result the plan worked out (12 / 4 = 3): as much information as the rarest word.
  let information = numbers.size;
  const distinct = new Set(rows);
  for (const r of distinct) if (!ctx.queryRows.has(r)) information += t.weight(r);
  let covered = 0;
  if (ctx.reference !== null) {
    for (const r of ctx.reference.rows) if (distinct.has(r)) covered += t.weight(r);
    for (const n of ctx.reference.numbers) if (numbers.has(n)) covered++;
  }
  return { steps, specificity: planSpecificity, information, coverage: ctx.reference === null ? null : covered / ctx.reference.weight };
}

const ramp = (x: number, from: number, to: number) => Math.min(1, Math.max(0, (x - from) / (to - from)));

/** §11d: how far the step is about this question, from 0 (no more than about any other) to 1. */
export const aboutness = (m: StepMeaning): number => ramp(m.specificity, MEANING.specificity.from, MEANING.specificity.to);

/**
 * §11h: how far the plan as a whole is about this question and says something of its own about it, 0–1. With a
 * reference (§11j) what the plan should say is known, and its share of it stands in for both estimates.
 */
export const planAboutness = (m: PlanMeaning): number =>
  m.coverage !== null
    ? ramp(m.coverage, MEANING.referenceCoverage.from, MEANING.referenceCoverage.to)
    : ramp(m.specificity, MEANING.planSpecificity.from, MEANING.planSpecificity.to) *
      ramp(m.information, MEANING.planInformation.from, MEANING.planInformation.to);
