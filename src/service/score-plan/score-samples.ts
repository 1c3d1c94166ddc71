import type { OpenRlhfRequest } from '../../contracts/openrlhf.js';
import { InvalidRequest } from '../../common/errors.js';
import { fingerprint } from '../../runs/idempotency.js';
import { composeSample, type Sample } from '../../scoring/score-samples.js';
import { samplesOf } from '../../trainers/openrlhf.js';
import type { Service } from '../context.js';
import { INITIAL_WEIGHTS } from '../../grpo/compose.js';
import { scoringDefaultsOf, summaryOf, type ScoreSummary } from '../../scoring/score-groups.js';
import { sampleGate, type SampleAnswer } from './sample-batches.js';

/** What the route answers with: each sample's reward, and the step the samples were counted in (or would be). */
export interface ScoredSamples {
  scores: SampleAnswer['scores'];
  step: number;
  counted: boolean;
  replayed: boolean;
  summary: ScoreSummary;
}

/**
 * OpenRLHF's samples (and verl's single form), scored one by one and counted in `runId`'s automatic steps
 * (or `step`), gathered with the other single-sample requests of the run (sample-batches.ts). `count: false`
 * scores with the run's weights of now and counts nothing (validation). An empty request opens no step.
 */
export async function scoreSamples(
  svc: Service,
  body: OpenRlhfRequest,
  at: { runId: string; step: number | undefined; count: boolean; idempotencyKey: string | undefined },
  signal: AbortSignal,
): Promise<(ScoredSamples & { profileIgnored: boolean[] }) | null> {
  const most = svc.requestLimits.maxPlansPerRequest;
  if (body.query.length > most) {
    throw new InvalidRequest(`${body.query.length} samples, over MAX_PLANS_PER_REQUEST`, [{ path: '$.query', message: `at most ${most}` }]);
  }
  const samples = samplesOf(body);
  // OpenRLHF with several --reward.remote_url entries sends each sample to the first and empty lists to
  // the others: no step is opened for nothing.
  if (samples.length === 0) return null;
  const profileIgnored = samples.map((s) => s.profileIgnored);
  const plain = samples.map(({ completion, profile, query }) => ({ completion, profile, query }));
  const evaluation = samples.map((s) => s.evaluation);
  if (evaluation.some(Boolean) && !evaluation.every(Boolean)) {
    throw new InvalidRequest('evaluation samples and training samples in one request', [
      { path: '$.labels', message: 'mark every label of a request "evaluation": true, or none (OpenRLHF sends one sample per request)' },
    ]);
  }
  if (!at.count || evaluation.some(Boolean)) return { ...(await uncounted(svc, at.runId, plain, signal)), profileIgnored };
  const print = fingerprint([body.query, body.prompts ?? null, body.labels ?? null]); // tells a retry from a reuse of its key
  const answer = await svc.samples.submit(at.runId, {
    samples: plain,
    step: at.step,
    identity: at.idempotencyKey === undefined ? undefined : { key: at.idempotencyKey, fingerprint: print },
    signal,
  });
  // A replay counts nothing now, whatever its first answer said.
  const counted = answer.run.counted && !answer.replay;
  return { scores: answer.scores, step: answer.run.step, counted, replayed: answer.replay, summary: answer.summary, profileIgnored };
}

/** Scored with the weights the run's next plan would get, recorded nowhere. */
async function uncounted(svc: Service, runId: string, samples: Sample[], signal: AbortSignal): Promise<ScoredSamples> {
  const run = await svc.ledger.get(runId);
  const gate = sampleGate(run ? scoringDefaultsOf(run.config) : svc.defaults);
  const plans = await svc.pool.run('evaluateSamplesTask', { samples, limits: svc.planLimits, gate }, signal);
  const weights = run?.open_step?.weights ?? run?.weights ?? INITIAL_WEIGHTS;
  return {
    scores: plans.map((e) => ({ ...e, ...composeSample(e, weights) })),
    step: run?.open_step?.step ?? (run?.last_finalized_step ?? -1) + 1,
    counted: false,
    replayed: false,
    summary: summaryOf(plans, 0),
  };
}
