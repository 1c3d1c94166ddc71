import type { ResolvedOptions } from '../contracts/options.js';
import type { ScorePlanRequest } from '../contracts/score-plan.js';
import { INITIAL_WEIGHTS, type AxisVector } from '../grpo/compose.js';
import type { GateOptions } from '../scoring/evaluate-plan.js';
import { resolvePalette } from '../plan/palette.js';
import type { PlanLimits } from '../plan/parse.js';
import {
  composeGroups,
  evaluateGroups,
  meanVector,
  paletteInfo,
  planDetail,
  resolveOptions,
  scoringDefaultsOf,
  type EvaluatedGroup,
  type Judged,
  type ScoreSummary,
  type ScoringDefaults,
} from '../scoring/score-groups.js';
import { VERSIONS } from '../scoring/versions.js';
import { composeSample } from '../scoring/score-samples.js';
import { ReplayCache, type Receipt } from './idempotency.js';
import type { RunLedger } from './ledger.js';
import type { RunTurns } from './turns.js';

export const DEFAULT_RUN_ID = 'default';

export type RunScoring =
  | { kind: 'scored'; body: string; summary: ScoreSummary }
  | { kind: 'replay'; body: string }
  | { kind: 'conflict'; message: string };

export interface RunDeps {
  ledger: RunLedger;
  replays: ReplayCache;
  turns: RunTurns;
  serviceDefaults: ScoringDefaults;
}

/** How a request's plans are judged and written out: the costly halves, run wherever the caller likes. */
export interface PlanScorer<J> {
  judge(gate: GateOptions): Promise<J>;
  /** Composes the judged plans with `weights`; `write` gives the response text once the step info is known. */
  compose(judged: J, options: ResolvedOptions, weights: AxisVector): { summary: ScoreSummary; raws: AxisVector[]; write: (run: Receipt['run'] | null) => string };
}

/** Judges once per distinct gate (a run's λ_hard may change while a request waits for its turn). */
function memoJudge<J>(judge: (gate: GateOptions) => Promise<J>): (o: ResolvedOptions) => Promise<J> {
  const seen = new Map<string, Promise<J>>();
  return (o) => {
    const key = `${o.strict}/${o.lambda_hard}`;
    let p = seen.get(key);
    if (!p) {
      p = judge({ strict: o.strict, lambda_hard: o.lambda_hard });
      p.catch(() => undefined); // awaited later, or dropped when the request ends first
      seen.set(key, p);
    }
    return p;
  };
}

/**
 * /score-plan with step accounting. Plans are judged as soon as the request arrives, with the options its
 * run has then; the bookkeeping — replay check, which step and weights apply, recording the plans — runs
 * in the request's turn of its run (arrival order), synchronously from ledger entry to record. A request
 * whose signal aborts before its turn records nothing.
 */
export async function scoreInRun<J>(req: ScorePlanRequest, idempotencyKey: string | undefined, deps: RunDeps, scorer: PlanScorer<J>, signal: AbortSignal): Promise<RunScoring> {
  const judged = memoJudge((gate) => scorer.judge(gate));
  const runId = req.run_id === undefined ? DEFAULT_RUN_ID : req.run_id;
  if (runId === null) {
    const options = resolveOptions(req.options, deps.serviceDefaults);
    const c = scorer.compose(await judged(options), options, INITIAL_WEIGHTS);
    return { kind: 'scored', body: c.write(null), summary: c.summary };
  }

  const replayKey = idempotencyKey === undefined ? undefined : ReplayCache.key(runId, req.step, idempotencyKey);
  const fingerprint = idempotencyKey === undefined ? '' : ReplayCache.fingerprint(req);
  const replay = async (): Promise<RunScoring | undefined> => {
    if (replayKey === undefined) return undefined;
    const hit = deps.replays.get(replayKey);
    if (!hit) return undefined;
    if (hit.receipt.fingerprint !== fingerprint) {
      return { kind: 'conflict', message: `Idempotency-Key "${idempotencyKey!}" was used for a different request in run ${runId}` };
    }
    if (hit.body !== undefined) return { kind: 'replay', body: hit.body };
    // The reply was evicted: rebuild it from the receipt, without counting the plans again.
    const options = resolveOptions(req.options, hit.receipt.defaults);
    return { kind: 'replay', body: scorer.compose(await judged(options), options, hit.receipt.run.weights).write(hit.receipt.run) };
  };
  const known = await replay();
  if (known) return known;

  const defaultsNow = (): ScoringDefaults => {
    const run = deps.ledger.get(runId);
    return run ? scoringDefaultsOf(run.config) : deps.serviceDefaults;
  };
  void judged(resolveOptions(req.options, defaultsNow()));
  return deps.turns.inTurn(runId, signal, async () => {
    // A concurrent request with the same key may have been counted while this one waited.
    const again = await replay();
    if (again) return again;
    const defaults = defaultsNow();
    const options = resolveOptions(req.options, defaults);
    const plans = await judged(options);
    if (signal.aborted) throw signal.reason as Error;
    // Synchronous from here on: the run cannot change between entry and record.
    const ticket = deps.ledger.enter(runId, req.step);
    const c = scorer.compose(plans, options, ticket.weights);
    const finalized = deps.ledger.record(ticket, c.raws, c.summary.gated);
    const run = { id: runId, step: ticket.step, status: ticket.status, counted: ticket.counted, weights: ticket.weights, finalized };
    const body = c.write(run);
    if (replayKey !== undefined) deps.replays.set(replayKey, { fingerprint, run, defaults }, body);
    return { kind: 'scored', body, summary: c.summary };
  });
}

export interface SampleResult extends Judged {
  reward: number;
  score: number;
}

/**
 * Step-less samples (OpenRLHF): judged at once, then counted in the request's turn into the run's
 * automatic steps (one per request, or `samples_per_step` plans per step) and composed with the weights
 * of the step they land in.
 */
export async function scoreSamplesInRun(
  runId: string,
  deps: RunDeps,
  judge: (gate: GateOptions) => Promise<Judged[]>,
  signal: AbortSignal,
): Promise<{ scores: SampleResult[]; step: number; summary: ScoreSummary }> {
  const lambdaNow = () => deps.ledger.get(runId)?.config.lambda_hard ?? deps.serviceDefaults.lambda_hard;
  const judged = memoJudge(judge);
  const gateOf = (lambda_hard: number): ResolvedOptions => ({ ...deps.serviceDefaults, strict: false, lambda_hard });
  void judged(gateOf(lambdaNow()));
  return deps.turns.inTurn(runId, signal, async () => {
    const evaluations = await judged(gateOf(lambdaNow()));
    if (signal.aborted) throw signal.reason as Error;
    const ticket = deps.ledger.enter(runId, undefined);
    const scores = evaluations.map((e) => ({ ...e, ...composeSample(e, ticket.weights) }));
    const raws = scores.map((s) => s.raw);
    const gated = scores.filter((s) => s.gate.failed).length;
    deps.ledger.record(ticket, raws, gated);
    return { scores, step: ticket.step, summary: { groups: 0, plans: raws.length, gated, mean_raw: meanVector(raws) } };
  });
}

/** Judging and writing on the calling thread: the reference the pooled scorer is held to, and the bench's. */
export function localScorer(req: ScorePlanRequest, limits: PlanLimits): PlanScorer<EvaluatedGroup[]> {
  const palette = resolvePalette(req.palette);
  return {
    judge: async (gate) => evaluateGroups(req.groups, palette, limits, gate),
    compose(judged, options, weights) {
      const { groups, summary, raws } = composeGroups(judged, options, weights, planDetail);
      return { summary, raws, write: (run) => JSON.stringify({ groups, weights, options, palette: paletteInfo(palette), versions: VERSIONS, run }) };
    },
  };
}
