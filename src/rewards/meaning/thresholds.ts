// The meaning measures' thresholds (docs/rewards.md §11), fit on the calibration split of the honest-plan
// corpus by scripts/corpus/fit-meaning.ts and reported on its evaluation split by bench/guarded-eval.ts.
// Versioned like the gaming signals: any change to them, to the word table or to the average plan bumps
// MEANING_VERSION, reported with every score.
export const MEANING_VERSION = 'meaning@1';

export const MEANING = {
  /** Content words a step needs to be read alone: fewer say too little to place it (§11b, §11d). */
  readableWords: 3,
  /** New numbers that make a step of fewer words a calculation, read as part of its plan (§11b). */
  calculationNumbers: 2,
  /** Specificity ramp: no credit at or below `from`, full credit from `to`. */
  specificity: { from: -0.48, to: -0.33 },
  /** The same for the plan's steps read as one text. */
  planSpecificity: { from: -0.07, to: 0.04 },
  /** The same for the plan's information (Σ of the weights of its distinct content words beyond the query's and the profile's). */
  planInformation: { from: 5.09, to: 10.19 },
  /**
   * The same for the share of a reference's content the plan covers, when the group has a reference: linear,
   * so that every piece of the reference a plan leaves out costs it. A choice, not a fit: the corpus's honest plans
   * quote their references whole, so the split cannot say how much an honest paraphrase covers.
   */
  referenceCoverage: { from: 0, to: 1 },
  /** Words in a row found in the query that are pasted, not the step's own (§11c). */
  copiedRun: 4,
  /** A word shorter than this is never called invented (abbreviations, variable names). */
  inventedMinLength: 4,
} as const;
