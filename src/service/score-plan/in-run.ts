import type { ResolvedOptions } from '../../contracts/options.js';
import type { ScorePlanRequest } from '../../contracts/score-plan.js';
import { INITIAL_WEIGHTS, type AxisVector } from '../../grpo/compose.js';
import type { GateOptions } from '../../scoring/evaluate-plan.js';
import { resolveOptions, scoringDefaultsOf, type ScoreSummary, type ScoringDefaults, type Tally } from '../../scoring/score-groups.js';
import { IdempotencyConflict, ofContent, receiptKey } from '../../runs/idempotency.js';
import { stepSummary, type Counted, type StepInfo } from '../../runs/ledger.js';
import type { Arrival } from '../../runs/turns.js';
import type { Service } from '../context.js';
import type { Timings } from '../../common/timings.js';

const DEFAULT_RUN_ID = 'default';

/** A response's UTF-8 JSON in pieces, in order: a large one is written and sent a few pieces at a time. */
type JsonPieces = readonly Uint8Array[];

/** A scored request's answer: its JSON, in pieces, and whether it is a replay of one counted before. */
export type RunScoring = { kind: 'scored'; body: JsonPieces; summary: ScoreSummary } | { kind: 'replay'; body: JsonPieces };

/** What the bookkeeping reads of a /score-plan request; its plans stay with the scorer. */
export type RunRequest = Pick<ScorePlanRequest, 'run_id' | 'step' | 'options'>;

/**
 * A request's Idempotency-Key, with the fingerprint of the request (idempotency.ts) that tells a retry from
 * a reuse, and the fingerprint of its content, taken only for a receipt stored with one (`ofContent`).
 */
export interface Idempotency {
  key: string;
  fingerprint: string;
  contentFingerprint: (signal: AbortSignal) => Promise<string>;
}

/** What the bookkeeping needs of the service. */
export type RunDeps = Pick<Service, 'ledger' | 'replies' | 'turns' | 'defaults'>;

/** How a request's plans are judged and written out: the costly halves, run wherever the caller likes. */
export interface PlanScorer<J> {
  judge(gate: GateOptions): Promise<J>;
  /** What the judged plans bring to their step. */
  tally(judged: J): Tally;
  /** Composes the judged plans with `weights`; `write` gives the response text once the step info is known. */
  compose(
    judged: J,
    options: ResolvedOptions,
    weights: AxisVector,
  ): { summary: ScoreSummary; write: (run: StepInfo | null) => JsonPieces | Promise<JsonPieces> };
}

/** Judges once per distinct gate and profile (a run's may change while a request waits for its turn). */
function memoJudge<J>(judge: (gate: GateOptions) => Promise<J>, timings: Timings): (o: ResolvedOptions) => Promise<J> {
  const seen = new Map<string, Promise<J>>();
  return (o) => {
    const key = `${o.strict}/${o.lambda_hard}/${o.reward_profile}`;
    let p = seen.get(key);
    if (!p) {
      p = timings.time('judge', () => judge({ strict: o.strict, lambda_hard: o.lambda_hard, reward_profile: o.reward_profile }));
      p.catch(() => undefined); // awaited later, or dropped when the request ends first
      seen.set(key, p);
    }
    return p;
  };
}

/**
 * Judges with the run's options as they were when the request arrived and counts the result in one
 * transaction; if the run's λ_hard changed since (a PUT, here or on another replica), the transaction
 * says so and the plans are judged again. Returns the last judgement.
 */
async function countJudged<J>(
  deps: RunDeps,
  runId: string,
  step: number | undefined,
  onArrival: Promise<ScoringDefaults>,
  judged: (defaults: ScoringDefaults) => Promise<J>,
  tally: (j: J) => Tally,
  receipt: Idempotency | undefined,
  signal: AbortSignal,
  timings: Timings,
): Promise<{ judgement: J; counted: Exclude<Counted, { kind: 'stale' }> }> {
  let defaults = await onArrival;
  let claim = receipt && { key: receipt.key, fingerprint: receipt.fingerprint };
  for (;;) {
    const judgement = await judged(defaults);
    if (signal.aborted) throw signal.reason as Error;
    const counted = await timings.time('store', () => deps.ledger.count(runId, step, tally(judgement), defaults, claim));
    // A receipt from before fingerprints were of bytes: compared again by content.
    if (counted.kind === 'conflict' && claim?.fingerprint === receipt!.fingerprint && ofContent(counted.stored)) {
      claim = { key: receipt!.key, fingerprint: await receipt!.contentFingerprint(signal) };
      continue;
    }
    if (counted.kind !== 'stale') return { judgement, counted };
    defaults = counted.defaults;
  }
}

const runDefaults = async (deps: RunDeps, runId: string): Promise<ScoringDefaults> => {
  const config = await deps.ledger.config(runId);
  return config ? scoringDefaultsOf(config) : deps.defaults;
};

/**
 * /score-plan with step accounting. Plans are judged as soon as the request arrives, with the options its
 * run has then; the bookkeeping — replay check, which step and weights apply, recording the plans and the
 * receipt — is one transaction of the run store, taken in the request's turn of its run (arrival order in
 * this process; `arrival`, the place a request kept before it knew its run). Only once it has committed
 * is the request answered. A request whose signal aborts before its turn records nothing.
 */
export async function scoreInRun<J>(
  req: RunRequest,
  idempotency: Idempotency | undefined,
  deps: RunDeps,
  scorer: PlanScorer<J>,
  signal: AbortSignal,
  timings: Timings,
  arrival?: Arrival,
): Promise<RunScoring> {
  const judged = memoJudge((gate) => scorer.judge(gate), timings);
  // Composed with the weights, and written out with the step's info.
  const composed = (j: J, options: ResolvedOptions, weights: AxisVector, run: StepInfo | null) =>
    timings.time('compose', async () => {
      const c = scorer.compose(j, options, weights);
      return { summary: c.summary, body: await c.write(run) };
    });
  const runId = req.run_id === undefined ? DEFAULT_RUN_ID : req.run_id;
  if (runId === null) {
    arrival?.leave();
    const options = resolveOptions(req.options, deps.defaults);
    return { kind: 'scored', ...(await composed(await judged(options), options, INITIAL_WEIGHTS, null)) };
  }

  const receipt = idempotency && { ...idempotency, key: receiptKey(req.step, idempotency.key) };
  const byDefaults = (d: ScoringDefaults) => judged(resolveOptions(req.options, d));
  // Judging starts now; its outcome is awaited in the turn, or dropped if the request ends first.
  const onArrival = timings.time('store', () => runDefaults(deps, runId));
  void onArrival.then(byDefaults).catch(() => undefined);
  return deps.turns.inTurn(
    runId,
    signal,
    async () => {
      const { judgement, counted } = await countJudged(deps, runId, req.step, onArrival, byDefaults, (j) => scorer.tally(j), receipt, signal, timings);
      if (counted.kind === 'conflict') {
        throw new IdempotencyConflict(`Idempotency-Key "${idempotency!.key}" was used for a different request in run ${runId}`);
      }
      if (counted.kind === 'replay') {
        const cached = deps.replies.get(counted.receipt.id);
        if (cached !== undefined) return { kind: 'replay', body: cached };
        // Counted before a restart, on another replica, or evicted: rebuilt, not counted again.
        const options = resolveOptions(req.options, counted.receipt.defaults);
        return { kind: 'replay', body: (await composed(await judged(options), options, counted.receipt.run.weights, counted.receipt.run)).body };
      }
      const options = resolveOptions(req.options, counted.defaults);
      const { summary, body } = await composed(judgement, options, counted.run.weights, counted.run);
      if (counted.receipt !== undefined) deps.replies.set(counted.receipt, body);
      return { kind: 'scored', body, summary: { ...summary, run: stepSummary(counted.run) } };
    },
    arrival,
  );
}
