import type { ScorePlanRequest } from '../../contracts/score-plan.js';
import { InvalidRequest } from '../../common/errors.js';
import { JsonBytes } from '../../request-body/json.js';
import { fingerprint, fingerprintOfParts } from '../../runs/idempotency.js';
import type { Service } from '../context.js';
import { type RunScoring, scoreInRun } from './in-run.js';
import type { Judgement } from './plan-json.js';
import { pooledScorer } from './pooled-scorer.js';
import { completionCount } from './split-groups.js';

/**
 * /score-plan: the body read (on a worker when it came as bytes), its plans judged on the pool, counted in
 * its run and composed with the weights of its step. `signalFor` gives the request's signal once the body's
 * own deadline is known.
 */
export async function scorePlan(
  svc: Service,
  body: ScorePlanRequest | JsonBytes,
  key: string | undefined,
  signalFor: (bodyDeadlineMs?: number) => AbortSignal,
): Promise<RunScoring> {
  // A body read on a worker names its run only once read: its place in arrival order is kept meanwhile.
  const arrival = body instanceof JsonBytes ? svc.turns.arrive() : undefined;
  try {
    const { head, groups, fingerprintOf } = body instanceof JsonBytes ? await readOnWorker(svc, body, key !== undefined, signalFor()) : parsed(body);
    const most = svc.requestLimits.maxPlansPerRequest;
    if (groups.plans > most) {
      throw new InvalidRequest(`${groups.plans} completions in one request, over MAX_PLANS_PER_REQUEST=${most}`, [
        { path: '$.groups', message: `at most ${most} completions in all` },
      ]);
    }
    const signal = signalFor(head.options?.deadline_ms);
    const idempotency = key === undefined ? undefined : { key, fingerprint: fingerprintOf };
    const scorer = pooledScorer(head, groups, svc.planLimits, svc.pool, signal, key !== undefined && head.run_id !== null);
    return await scoreInRun(head, idempotency, svc, scorer, signal, arrival);
  } finally {
    arrival?.leave();
  }
}

function parsed(body: ScorePlanRequest) {
  const { groups, ...head } = body;
  const fingerprintOf = (judged: Judgement) => (judged.json ? fingerprintOfParts(body, judged.json) : fingerprint(body));
  return { head, groups: { groups, plans: completionCount(groups) }, fingerprintOf };
}

async function readOnWorker(svc: Service, body: JsonBytes, withKey: boolean, signal: AbortSignal) {
  const input = { json: body.bytes, maxDepth: svc.maxJsonDepth, workers: Math.max(1, svc.pool.workers), fingerprint: withKey };
  const read = await svc.pool.run('readScorePlanTask', input, signal, [body.bytes.buffer]);
  return { head: read.head, groups: { json: read.json, ends: read.ends, plans: read.plans }, fingerprintOf: () => read.fingerprint! };
}
