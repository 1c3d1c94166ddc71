import type { Profile } from '../contracts/profile.js';
import type { ScorePlanRequest, ScorePlanResponse } from '../contracts/score-plan.js';
import { INITIAL_WEIGHTS } from '../grpo/compose.js';
import type { PlanLimits } from '../plan/parse.js';
import { meanVector, scoreGroups, scoringDefaultsOf, type ScoreSummary, type ScoringDefaults } from '../scoring/score-groups.js';
import { scoreSamples, type SampleScore } from '../scoring/score-samples.js';
import { ReplayCache } from './idempotency.js';
import type { RunLedger } from './ledger.js';

export type RunScoring =
  | { kind: 'scored'; response: ScorePlanResponse; summary: ScoreSummary; body?: string }
  | { kind: 'replay'; body: string }
  | { kind: 'conflict'; message: string };

export const DEFAULT_RUN_ID = 'default';

/**
 * /score-plan with step accounting: a retry is answered from the replay cache; otherwise the ledger says
 * which step and weights apply, the groups are scored with them, and the plans are recorded. Synchronous
 * from ledger entry to record, so no other request's bookkeeping interleaves.
 */
export function scoreInRun(
  req: ScorePlanRequest,
  idempotencyKey: string | undefined,
  ledger: RunLedger,
  replays: ReplayCache,
  limits: PlanLimits,
  serviceDefaults: ScoringDefaults,
): RunScoring {
  const runId = req.run_id === undefined ? DEFAULT_RUN_ID : req.run_id;
  if (runId === null) {
    const { response, summary } = scoreGroups(req, limits, serviceDefaults, INITIAL_WEIGHTS);
    return { kind: 'scored', response: { ...response, run: null }, summary };
  }

  let replayKey: string | undefined;
  let fingerprint = '';
  if (idempotencyKey !== undefined) {
    replayKey = ReplayCache.key(runId, req.step, idempotencyKey);
    fingerprint = ReplayCache.fingerprint(req);
    const hit = replays.get(replayKey);
    if (hit && hit.receipt.fingerprint !== fingerprint) {
      return { kind: 'conflict', message: `Idempotency-Key "${idempotencyKey}" was used for a different request in run ${runId}` };
    }
    if (hit?.body !== undefined) return { kind: 'replay', body: hit.body };
    if (hit) {
      // The reply was evicted: rebuild it from the receipt, without counting the plans again.
      const { response } = scoreGroups(req, limits, hit.receipt.defaults, hit.receipt.run.weights);
      return { kind: 'replay', body: JSON.stringify({ ...response, run: hit.receipt.run } satisfies ScorePlanResponse) };
    }
  }

  const ticket = ledger.enter(runId, req.step);
  const defaults = scoringDefaultsOf(ticket.config);
  const { response, summary, raws } = scoreGroups(req, limits, defaults, ticket.weights);
  const finalized = ledger.record(ticket, raws, summary.gated);
  const run = { id: runId, step: ticket.step, status: ticket.status, counted: ticket.counted, weights: ticket.weights, finalized };
  const full: ScorePlanResponse = { ...response, run };
  if (replayKey === undefined) return { kind: 'scored', response: full, summary };
  const body = JSON.stringify(full);
  replays.set(replayKey, { fingerprint, run, defaults }, body);
  return { kind: 'scored', response: full, summary, body };
}

/**
 * Step-less samples (OpenRLHF): counted into the run's automatic steps (one per request, or
 * `samples_per_step` plans per step) and composed with the weights of the step they land in.
 */
export function scoreSamplesInRun(
  runId: string,
  samples: ReadonlyArray<{ completion: unknown; profile: Profile }>,
  ledger: RunLedger,
  limits: PlanLimits,
): { scores: SampleScore[]; step: number; summary: ScoreSummary } {
  const ticket = ledger.enter(runId, undefined);
  const scores = scoreSamples(samples, limits, { strict: false, lambda_hard: ticket.config.lambda_hard }, ticket.weights);
  const raws = scores.map((s) => s.evaluation.raw);
  const gated = scores.filter((s) => s.evaluation.gate.failed).length;
  ledger.record(ticket, raws, gated);
  return { scores, step: ticket.step, summary: { groups: 0, plans: raws.length, gated, mean_raw: meanVector(raws) } };
}
