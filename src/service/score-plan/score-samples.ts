import type { OpenRlhfRequest } from '../../contracts/openrlhf.js';
import { InvalidRequest } from '../../common/errors.js';
import type { GateOptions } from '../../scoring/evaluate-plan.js';
import { samplesOf } from '../../trainers/openrlhf.js';
import type { Service } from '../context.js';
import { scoreSamplesInRun } from './in-run.js';

/**
 * OpenRLHF's samples, scored one by one on the pool and counted in `runId`'s automatic steps (or `step`);
 * an empty request opens no step. Each score carries whether its label gave no usable profile.
 */
export async function scoreSamples(svc: Service, body: OpenRlhfRequest, runId: string, step: number | undefined, signal: AbortSignal) {
  const most = svc.requestLimits.maxPlansPerRequest;
  if (body.query.length > most) {
    throw new InvalidRequest(`${body.query.length} samples, over MAX_PLANS_PER_REQUEST`, [{ path: '$.query', message: `at most ${most}` }]);
  }
  const samples = samplesOf(body);
  // OpenRLHF with several --reward.remote_url entries sends each sample to the first and empty lists to
  // the others: no step is opened for nothing.
  if (samples.length === 0) return null;
  const judge = (gate: GateOptions) =>
    svc.pool.run(
      'evaluateSamplesTask',
      { samples: samples.map(({ completion, profile, query }) => ({ completion, profile, query })), limits: svc.planLimits, gate },
      signal,
    );
  const { scores, step: counted, summary } = await scoreSamplesInRun(runId, step, svc, judge, signal);
  return { scores: scores.map((s, i) => ({ ...s, profileIgnored: samples[i]!.profileIgnored })), step: counted, summary };
}
