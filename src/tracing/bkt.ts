/**
 * Bayesian knowledge tracing (Corbett & Anderson 1994): a two-state hidden Markov model per skill.
 * The hidden state is "knows the skill" (probability L); each answer is correct with probability 1 − slip when
 * known and guess when not; between opportunities an unknown skill is learned with probability `learn` and a
 * known one forgotten with probability `forget` (0 in classic BKT).
 */

export interface BktParams {
  /** P(L0): probability the skill is known before the first opportunity. */
  prior: number;
  /** P(T): probability of moving from unknown to known between opportunities. */
  learn: number;
  /** P(G): probability of a correct answer while the skill is unknown. */
  guess: number;
  /** P(S): probability of an incorrect answer while the skill is known. */
  slip: number;
  /** P(F): probability of moving from known to unknown; 0 = no forgetting (classic BKT). */
  forget: number;
}

export interface TraceStep {
  /** P(known) before seeing this answer. */
  before: number;
  /** Predicted P(correct) for this answer, from `before`. */
  pCorrect: number;
  /** P(known) after conditioning on this answer and then applying the learn/forget transition. */
  after: number;
}

const FIELDS = ['prior', 'learn', 'guess', 'slip', 'forget'] as const;

/**
 * Throws RangeError naming the offending field unless every parameter is a probability and guess + slip < 1
 * (otherwise a correct answer would not be evidence of knowing: the model is "reversed").
 */
export function validateParams(p: BktParams): void {
  for (const field of FIELDS) {
    const v = p[field];
    if (typeof v !== 'number' || !(v >= 0 && v <= 1)) {
      throw new RangeError(`BKT parameter ${field} must be a number in [0, 1], got ${String(v)}`);
    }
  }
  if (p.guess + p.slip >= 1) {
    throw new RangeError(`BKT parameters guess + slip must be < 1, got guess ${p.guess} + slip ${p.slip}`);
  }
}

/** Predicted correctness: P(correct) = L(1 − S) + (1 − L)G. */
export function pCorrect(L: number, p: BktParams): number {
  return L * (1 - p.slip) + (1 - L) * p.guess;
}

/**
 * Bayes' rule on one answer. Correct: L(1 − S) / (L(1 − S) + (1 − L)G); incorrect: LS / (LS + (1 − L)(1 − G)).
 */
export function posterior(L: number, correct: boolean, p: BktParams): number {
  const known = correct ? L * (1 - p.slip) : L * p.slip;
  const unknown = correct ? (1 - L) * p.guess : (1 - L) * (1 - p.guess);
  const evidence = known + unknown;
  // An answer the model deems impossible (e.g. correct with L = 0 and guess = 0) carries no usable evidence.
  return evidence > 0 ? known / evidence : L;
}

/** Learning/forgetting between opportunities: L' = post(1 − F) + (1 − post)T. */
export function transition(post: number, p: BktParams): number {
  return post * (1 - p.forget) + (1 - post) * p.learn;
}

/** Forward filtering over one learner's answers on one skill, starting from the prior. */
export function trace(observations: readonly boolean[], p: BktParams): TraceStep[] {
  validateParams(p);
  const steps: TraceStep[] = [];
  let L = p.prior;
  for (const correct of observations) {
    const after = transition(posterior(L, correct, p), p);
    steps.push({ before: L, pCorrect: pCorrect(L, p), after });
    L = after;
  }
  return steps;
}
