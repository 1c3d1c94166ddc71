/**
 * Maximum-likelihood BKT parameters per skill by expectation–maximisation (Baum–Welch), as pyBKT fits them:
 * several random initialisations, each run to convergence, keeping the one with the best log-likelihood.
 *
 * The hidden chain has two states, unknown (U) and known (K): initial P(K) = prior, U→K = learn,
 * K→U = forget (fixed at 0 unless `forgets`), emissions P(correct | U) = guess, P(incorrect | K) = slip.
 */
import { type BktParams, posterior, pCorrect, transition, validateParams } from './bkt.js';
import { mulberry32 } from '../common/rng.js';

export interface FitOptions {
  /** Random initialisations; pyBKT's `num_fits` default is 5. */
  restarts?: number;
  /** EM iterations (E-steps) per restart; pyBKT's `EM_fit` default is 100. */
  maxIterations?: number;
  /** Stop once the total log-likelihood improves by less than this (absolute, like pyBKT's `tol`). */
  tolerance?: number;
  /** Seed of the initialisations: the same seed and data give bit-identical fits. */
  seed?: number;
  /** Fit the forget probability too (pyBKT `forgets=True`); otherwise forget is fixed at 0. */
  forgets?: boolean;
  /** Upper bound on guess (see FIT_DEFAULTS). */
  maxGuess?: number;
  /** Upper bound on slip (see FIT_DEFAULTS). */
  maxSlip?: number;
  /** Keep each restart's log-likelihood after every E-step in `FitResult.history`. */
  history?: boolean;
  /** Asked before every E-step; true ends the fit with FitStopped (a deadline passed, say). */
  stop?: () => boolean;
}

/** The fit was asked to stop (FitOptions.stop) before it converged. */
export class FitStopped extends Error {
  override name = 'FitStopped';
}

type Resolved = Required<Omit<FitOptions, 'stop'>> & Pick<FitOptions, 'stop'>;

export interface FitResult {
  params: BktParams;
  /** Total log-likelihood of all sequences under `params` (natural log). */
  logLikelihood: number;
  /** E-steps run by the winning restart (its last one scored `params`). */
  iterations: number;
  restarts: number;
  sequences: number;
  observations: number;
  /** Per restart, the log-likelihood after each E-step; only with `options.history`. */
  history?: number[][];
}

/**
 * Defaults. pyBKT itself does not bound guess or slip in its M-step (it only draws their starting values
 * below 0.4 and 0.3); we cap both at 0.3, the "guess < 0.3" rule of thumb for avoiding degenerate models
 * (Baker, Corbett & Aleven 2008) applied to slip too, so guess + slip < 1 always holds and a correct answer
 * always raises P(known). Other parameters stay inside [1e-6, 1 − 1e-6] so no state becomes impossible.
 */
export const FIT_DEFAULTS = Object.freeze({
  restarts: 5,
  maxIterations: 100,
  tolerance: 1e-4,
  seed: 0,
  forgets: false,
  maxGuess: 0.3,
  maxSlip: 0.3,
});

const EPS = 1e-6;

/** One learner's responses on one skill, with its position in the input (for `order` ties). */
export interface ResponseRow {
  user: string;
  skill: string;
  correct: boolean | 0 | 1;
  order?: number;
}

/** Sequences flattened into one byte array (1 = correct) with start offsets, so the E-step allocates nothing. */
interface Packed {
  obs: Uint8Array;
  /** starts[i]..starts[i+1] is sequence i. */
  starts: Int32Array;
  /** Scratch for filtered P(known), sized to the longest sequence. */
  filtered: Float64Array;
}

/** Expected sufficient statistics from one E-step. */
interface Counts {
  logLikelihood: number;
  initKnown: number;
  fromUnknown: number;
  learned: number;
  fromKnown: number;
  forgot: number;
  unknownTotal: number;
  unknownCorrect: number;
  knownTotal: number;
  knownIncorrect: number;
}

interface Bounds {
  maxGuess: number;
  maxSlip: number;
  forgets: boolean;
}

/**
 * Fits one skill from its answer sequences, one per learner in order. Restarts draw their starting points from
 * one generator seeded with `options.seed`, so a fit is reproducible; the restart with the highest final
 * log-likelihood wins. Throws RangeError on no sequences, an empty sequence or out-of-range options.
 */
export function fitSkill(sequences: readonly (readonly boolean[])[], options: FitOptions = {}): FitResult {
  const opts = resolveOptions(options);
  const data = pack(sequences);
  const rng = mulberry32(opts.seed);
  let best: { params: BktParams; logLikelihood: number; iterations: number } | undefined;
  const history: number[][] = [];
  for (let r = 0; r < opts.restarts; r++) {
    const run = runEm(data, randomInit(rng, opts), opts);
    history.push(run.history);
    if (best === undefined || run.logLikelihood > best.logLikelihood) best = run;
  }
  if (best === undefined) throw new Error('unreachable: restarts >= 1');
  return {
    params: best.params,
    logLikelihood: best.logLikelihood,
    iterations: best.iterations,
    restarts: opts.restarts,
    sequences: sequences.length,
    observations: data.obs.length,
    ...(opts.history ? { history } : {}),
  };
}

/**
 * Fits every skill in `rows`: rows are grouped by skill, then by user; within a user a skill's responses are
 * ordered by `order` when rows carry it (stable for ties), else kept in input order. Skills come back in order
 * of first appearance.
 */
export function fitBySkill(rows: readonly ResponseRow[], options: FitOptions = {}): Map<string, FitResult> {
  const fits = new Map<string, FitResult>();
  for (const [skill, sequences] of groupBySkill(rows)) fits.set(skill, fitSkill(sequences, options));
  return fits;
}

/** Groups rows into per-skill lists of per-user answer sequences (see fitBySkill for ordering). */
export function groupBySkill(rows: readonly ResponseRow[]): Map<string, boolean[][]> {
  const withOrder = rows.filter((row) => row.order !== undefined).length;
  if (withOrder !== 0 && withOrder !== rows.length) {
    throw new RangeError('order must be given on every row or on none');
  }
  const bySkill = new Map<string, Map<string, { order: number; index: number; correct: boolean }[]>>();
  rows.forEach((row, index) => {
    if (row.correct !== true && row.correct !== false && row.correct !== 0 && row.correct !== 1) {
      throw new RangeError(`row ${index}: correct must be a boolean, 0 or 1`);
    }
    if (row.order !== undefined && !Number.isFinite(row.order)) {
      throw new RangeError(`row ${index}: order must be a finite number`);
    }
    let byUser = bySkill.get(row.skill);
    if (!byUser) bySkill.set(row.skill, (byUser = new Map()));
    let answers = byUser.get(row.user);
    if (!answers) byUser.set(row.user, (answers = []));
    answers.push({ order: row.order ?? index, index, correct: row.correct === true || row.correct === 1 });
  });
  const out = new Map<string, boolean[][]>();
  for (const [skill, byUser] of bySkill) {
    out.set(
      skill,
      [...byUser.values()].map((answers) => answers.sort((a, b) => a.order - b.order || a.index - b.index).map((a) => a.correct)),
    );
  }
  return out;
}

/**
 * One Baum–Welch iteration from `params`: the log-likelihood of `params` and the
 * parameters the M-step moves to (within the same bounds fitSkill uses; without `forgets` the next forget is 0
 * whatever `params.forget` was).
 */
export function emIteration(
  sequences: readonly (readonly boolean[])[],
  params: BktParams,
  options: Pick<FitOptions, 'forgets' | 'maxGuess' | 'maxSlip'> = {},
): { logLikelihood: number; next: BktParams } {
  validateParams(params);
  const opts = resolveOptions(options);
  const data = pack(sequences);
  const counts = eStep(data, params);
  return { logLikelihood: counts.logLikelihood, next: mStep(counts, params, sequences.length, opts) };
}

/** Total log-likelihood of the sequences under `p`, by plain forward filtering (the reference for the E-step). */
export function logLikelihood(sequences: readonly (readonly boolean[])[], p: BktParams): number {
  validateParams(p);
  let ll = 0;
  for (const seq of sequences) {
    let L = p.prior;
    for (const correct of seq) {
      const pc = pCorrect(L, p);
      ll += Math.log(correct ? pc : 1 - pc);
      L = transition(posterior(L, correct, p), p);
    }
  }
  return ll;
}

function resolveOptions(options: FitOptions): Resolved {
  const o = { ...FIT_DEFAULTS, history: false, ...stripUndefined(options) };
  if (!Number.isInteger(o.restarts) || o.restarts < 1) throw new RangeError('restarts must be an integer >= 1');
  if (!Number.isInteger(o.maxIterations) || o.maxIterations < 1) {
    throw new RangeError('maxIterations must be an integer >= 1');
  }
  if (!(o.tolerance >= 0)) throw new RangeError('tolerance must be >= 0');
  if (!Number.isFinite(o.seed)) throw new RangeError('seed must be a finite number');
  if (!(o.maxGuess > EPS && o.maxGuess < 1)) throw new RangeError('maxGuess must be in (1e-6, 1)');
  if (!(o.maxSlip > EPS && o.maxSlip < 1)) throw new RangeError('maxSlip must be in (1e-6, 1)');
  if (o.maxGuess + o.maxSlip >= 1) throw new RangeError('maxGuess + maxSlip must be < 1');
  return o;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function pack(sequences: readonly (readonly boolean[])[]): Packed {
  if (sequences.length === 0) throw new RangeError('no sequences to fit');
  const starts = new Int32Array(sequences.length + 1);
  let maxLen = 0;
  sequences.forEach((seq, i) => {
    if (seq.length === 0) throw new RangeError(`sequence ${i} is empty`);
    starts[i + 1] = starts[i]! + seq.length;
    maxLen = Math.max(maxLen, seq.length);
  });
  const obs = new Uint8Array(starts[sequences.length]!);
  sequences.forEach((seq, i) => {
    seq.forEach((correct, t) => {
      if (typeof correct !== 'boolean') throw new RangeError(`sequence ${i}, answer ${t}: not a boolean`);
      obs[starts[i]! + t] = correct ? 1 : 0;
    });
  });
  return { obs, starts, filtered: new Float64Array(maxLen) };
}

/** pyBKT's random starting model (random_model_uni), moved inside our bounds. */
function randomInit(rng: () => number, b: Bounds): BktParams {
  return clampParams(
    {
      prior: rng(),
      learn: rng() * 0.4,
      guess: rng() * 0.4,
      slip: rng() * 0.3,
      forget: b.forgets ? rng() : 0,
    },
    b,
  );
}

function clampParams(p: BktParams, b: Bounds): BktParams {
  return {
    prior: clamp(p.prior, EPS, 1 - EPS),
    learn: clamp(p.learn, EPS, 1 - EPS),
    guess: clamp(p.guess, EPS, b.maxGuess),
    slip: clamp(p.slip, EPS, b.maxSlip),
    forget: b.forgets ? clamp(p.forget, EPS, 1 - EPS) : 0,
  };
}

function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : Math.min(x, hi);
}

/** One restart: alternate E- and M-steps until the log-likelihood stops improving or the budget runs out. */
function runEm(data: Packed, init: BktParams, opts: Resolved): { params: BktParams; logLikelihood: number; iterations: number; history: number[] } {
  let params = init;
  const history: number[] = [];
  for (;;) {
    if (opts.stop?.()) throw new FitStopped('the fit was stopped before it converged');
    const counts = eStep(data, params);
    history.push(counts.logLikelihood);
    const n = history.length;
    const converged = n > 1 && counts.logLikelihood - history[n - 2]! < opts.tolerance;
    // Stop before the M-step so the returned params are the ones the reported log-likelihood scores.
    if (converged || n >= opts.maxIterations) {
      return { params, logLikelihood: counts.logLikelihood, iterations: n, history };
    }
    params = mStep(counts, params, data.starts.length - 1, opts);
  }
}

/**
 * M-step: each parameter is the ratio of its expected counts (the maximiser of the expected complete-data
 * log-likelihood). Each such term is concave in its one parameter, so clamping to the bounds gives the
 * constrained maximiser and EM still never decreases the likelihood.
 */
function mStep(c: Counts, prev: BktParams, sequences: number, b: Bounds): BktParams {
  const ratio = (num: number, den: number, fallback: number) => (den > 0 ? num / den : fallback);
  return clampParams(
    {
      prior: c.initKnown / sequences,
      learn: ratio(c.learned, c.fromUnknown, prev.learn),
      forget: ratio(c.forgot, c.fromKnown, prev.forget),
      guess: ratio(c.unknownCorrect, c.unknownTotal, prev.guess),
      slip: ratio(c.knownIncorrect, c.knownTotal, prev.slip),
    },
    b,
  );
}

/**
 * E-step: scaled forward filtering, then backward smoothing of the two-state chain, accumulating expected
 * state occupancies and transitions. The forward pass keeps the filtered P(K_t | answers ≤ t); the backward
 * pass turns it into the smoothed P(K_t | all answers) with the pairwise posterior
 * ξ_t(i, j) = filtered_t(i) · A(i, j) · smoothed_{t+1}(j) / predicted_{t+1}(j).
 */
function eStep(data: Packed, p: BktParams): Counts {
  const { obs, starts, filtered } = data;
  const { learn, forget } = p;
  let initKnown = 0;
  let fromUnknown = 0;
  let learned = 0;
  let fromKnown = 0;
  let forgot = 0;
  let unknownTotal = 0;
  let unknownCorrect = 0;
  let knownTotal = 0;
  let knownIncorrect = 0;
  // The likelihood is a running product of per-answer evidence, logged only when it nears underflow:
  // one Math.log per ~hundreds of answers instead of one per answer.
  let logLik = 0;
  let product = 1;

  const nSeq = starts.length - 1;
  for (let s = 0; s < nSeq; s++) {
    const start = starts[s]!;
    const len = starts[s + 1]! - start;

    // Forward: predicted P(K_t) → filtered P(K_t | answers ≤ t) by Bayes, then the transition.
    let predicted = p.prior;
    for (let t = 0; t < len; t++) {
      const correct = obs[start + t] === 1;
      const pc = pCorrect(predicted, p);
      product *= correct ? pc : 1 - pc; // P(answer_t | answers < t)
      if (product < 1e-280) {
        logLik += Math.log(product);
        product = 1;
      }
      const f = posterior(predicted, correct, p);
      filtered[t] = f;
      predicted = transition(f, p);
    }

    // Backward: smoothed occupancies γ and pairwise posteriors ξ, from the last answer to the first.
    let gK = filtered[len - 1]!;
    let gU = 1 - gK;
    for (let t = len - 1; ; t--) {
      const correct = obs[start + t] === 1;
      knownTotal += gK;
      unknownTotal += gU;
      if (correct) unknownCorrect += gU;
      else knownIncorrect += gK;
      if (t === 0) break;

      const fK = filtered[t - 1]!;
      const fU = 1 - fK;
      const predK = transition(fK, p);
      const predU = fK * forget + fU * (1 - learn); // 1 − predK, written out to keep precision when predK ≈ 1
      const rK = predK > 0 ? gK / predK : 0;
      const rU = predU > 0 ? gU / predU : 0;
      const kk = fK * (1 - forget) * rK;
      const ku = fK * forget * rU;
      const uk = fU * learn * rK;
      const uu = fU * (1 - learn) * rU;
      fromKnown += kk + ku;
      forgot += ku;
      fromUnknown += uk + uu;
      learned += uk;
      gK = kk + ku;
      gU = uk + uu;
    }
    initKnown += gK;
  }
  logLik += Math.log(product);

  return {
    logLikelihood: logLik,
    initKnown,
    fromUnknown,
    learned,
    fromKnown,
    forgot,
    unknownTotal,
    unknownCorrect,
    knownTotal,
    knownIncorrect,
  };
}
