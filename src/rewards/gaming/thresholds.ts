import type { GamingSignalCode } from '../../contracts/gaming.js';

// The gaming signals' thresholds and the guarded reward's constants, set so that no real plan of the
// calibration set (test/fixtures/plans/real-plans.json and the repo's example plans) raises a signal; the
// calibration test holds them there and docs/rewards.md §10 gives each one's reason. Versioned like the
// lexicon: any change bumps GAMING_VERSION, reported with every score.
export const GAMING_VERSION = 'gaming-signals@2';

/** Each signal fires when its measure (docs/rewards.md §10) is above its threshold. */
export const GAMING_THRESHOLDS = {
  /** Share of the credited profile signals named only outside sentences of the plan's own. */
  bare_keywords: 1,
  /** Share of the content words of the steps, or of one long step, that are profile phrases. */
  keyword_stuffing: 0.28,
  /** Share of steps whose instruction's word set is (nearly) an earlier step's. */
  duplicate_steps: 0,
  /** Share of steps that name nothing of programming or of the query in words of their own. */
  off_topic: 0.5,
  /** Scored phases credited by cue words alone. */
  cue_only_phase: 3,
  /** Reasons the structure is degenerate (one agent runs every step; no step depends on another). */
  degenerate_structure: 0,
} as const satisfies Record<GamingSignalCode, number>;

/** How the signals read plan text. */
export const READING = {
  /** Words of its own (not a profile phrase, cue, copied run, function or generic word) a step's sentence needs to enact a phase… */
  sentenceOwnWords: 2,
  /** …or to enact activation, whose cues are long phrases ("what the learner already knows") around the object of the question. */
  activationOwnWords: 1,
  /** Words of its own a sentence needs to credit the profile signals it names. */
  sentenceOwnWordsForSignals: 1,
  /** Largest share of a sentence's content words that may be profile phrases for it to credit them. */
  sentenceKeywordShare: 0.5,
  /** The same for a role or a name, which needs one other word ("SQL tutor", "API design mentor"). */
  labelKeywordShare: 2 / 3,
  /** Words in a row taken from the query or the profile that are not the plan's own text. */
  copiedRun: 2,
  /** Two steps are one when the Jaccard similarity of their instructions' word sets reaches this (both of at least duplicateMinWords words). */
  duplicateJaccard: 0.8,
  duplicateMinWords: 3,
  /** A step of this many content words is judged on its own for keyword stuffing. */
  longStepWords: 10,
  /** Words of the query a sentence without a programming word must name to be on topic. */
  queryWords: 1,
  /** Words a sentence must share with the plan's on-topic step sentences to be on topic through them. */
  topicSharedWords: 2,
  /** Plans of fewer steps are too small to call their structure degenerate. */
  structureMinSteps: 3,
} as const;

export const GUARDED = {
  /** Each signal that fires multiplies every soft axis by 1 − penalty. */
  penalty: 0.5,
  /** Steps about the question a plan needs for its whole structural credit: twenty one-word steps earn none. */
  structureSteps: 3,
} as const;
