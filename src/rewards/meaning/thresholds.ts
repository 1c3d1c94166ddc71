// The meaning measures' thresholds (docs/rewards.md §11), fit on the calibration split of the honest-plan
// corpus by scripts/corpus/fit-meaning.ts and reported on its evaluation split by bench/guarded-eval.ts.
// Versioned like the gaming signals: any change bumps MEANING_VERSION, reported with every score.
export const MEANING_VERSION = 'meaning@1';

export const MEANING = {
  /** K: the background queries nearest a step whose mean cosine its cosine with the query must pass. */
  backgroundNearest: 3,
  /** A background query this close to the query is the query itself. */
  sameQuery: 0.98,
  /** κ: how many words' worth of the plan's specificity a step's own reading is shrunk toward (§11b). */
  shrink: 4,
  /** Content words (and new numbers) a step needs to be read at all. */
  minWords: 2,
  /** Content words beyond the query's a step needs to teach. */
  minNewWords: 2,
  /** Specificity ramp: no credit at or below `from`, full credit from `to`. */
  specificity: { from: -0.51, to: -0.36 },
  /** The same for the plan's steps read as one text. */
  planSpecificity: { from: -0.16, to: -0.06 },
  /** The same for the plan's information (Σ of the weights of its distinct content words beyond the query's and the profile's). */
  planInformation: { from: 5.8, to: 11.61 },
  /**
   * The same for the share of a reference's content the plan covers, when the group has a reference. A choice,
   * not a fit: the corpus's honest plans quote their references whole, so it cannot say what a paraphrase covers.
   */
  referenceCoverage: { from: 0.25, to: 0.5 },
  /** A word shorter than this is never called invented (abbreviations, variable names). */
  inventedMinLength: 4,
} as const;
