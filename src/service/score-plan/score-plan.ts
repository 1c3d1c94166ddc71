import { ScorePlanHeadSchema, type ScorePlanRequest } from '../../contracts/score-plan.js';
import { ServiceError } from '../../common/errors.js';
import { headText } from '../../request-body/groups-layout.js';
import { depthIssue, GroupsBytes, JsonBytes, parseBody } from '../../request-body/json.js';
import { fingerprint, fingerprintOfParts } from '../../runs/idempotency.js';
import type { Service } from '../context.js';
import { type RunScoring, scoreInRun } from './in-run.js';
import type { Judgement } from './plan-json.js';
import { pooledScorer, type ScorableGroups } from './pooled-scorer.js';
import { checkPlanCount, completionCount, splitLayout } from './split-groups.js';

type Head = Omit<ScorePlanRequest, 'groups'>;

interface Read {
  head: Head;
  groups: ScorableGroups;
  /** Whether the workers write the groups' JSON back (the fingerprint is taken from it). */
  json: boolean;
  fingerprintOf: (judged: Judgement) => string;
}

/**
 * /score-plan: the body read (its groups on the workers when it came as bytes), its plans judged on the
 * pool, counted in its run and composed with the weights of its step. `signalFor` gives the request's signal
 * once the body's own deadline is known.
 */
export async function scorePlan(
  svc: Service,
  body: ScorePlanRequest | JsonBytes,
  key: string | undefined,
  signalFor: (bodyDeadlineMs?: number) => AbortSignal,
): Promise<RunScoring> {
  const inParts = body instanceof GroupsBytes ? readHead(svc, body, key !== undefined) : undefined;
  // A body read whole on a worker names its run only once read: its place in arrival order is kept meanwhile.
  const arrival = body instanceof JsonBytes && !inParts ? svc.turns.arrive() : undefined;
  try {
    const read = inParts ?? (body instanceof JsonBytes ? await readOnWorker(svc, body, key !== undefined, signalFor()) : parsed(body, key !== undefined));
    const { head, groups } = read;
    if (groups.plans !== undefined) checkPlanCount(groups.plans, svc.requestLimits.maxPlansPerRequest);
    const signal = signalFor(head.options?.deadline_ms);
    const inRun = key !== undefined && head.run_id !== null;
    const settings = {
      palette: head.palette,
      limits: svc.planLimits,
      maxDepth: svc.maxJsonDepth,
      maxPlans: svc.requestLimits.maxPlansPerRequest,
      json: read.json && inRun,
    };
    const idempotency = key === undefined ? undefined : { key, fingerprint: read.fingerprintOf };
    const scoring = scoreInRun(head, idempotency, svc, pooledScorer(head, groups, settings, svc.pool, signal), signal, arrival);
    // A body whose groups its workers read gets the 400 it would get read whole: the issues of all of it, in order.
    return inParts ? await scoring.catch((e: unknown) => asReadWhole(svc, body as JsonBytes, e, signalFor())) : await scoring;
  } finally {
    arrival?.leave();
  }
}

function parsed(body: ScorePlanRequest, json: boolean): Read {
  const { groups, ...head } = body;
  const fingerprintOf = (judged: Judgement) => (judged.json ? fingerprintOfParts(body, judged.json) : fingerprint(body));
  return { head, groups: { groups, plans: completionCount(groups) }, json, fingerprintOf };
}

/**
 * The head of a body whose groups the workers read, checked here; undefined when it does not read as the
 * head of a valid request, for the body to be read whole (the error it gets is then the one it would get).
 */
function readHead(svc: Service, body: GroupsBytes, withKey: boolean): Read | undefined {
  let value: unknown;
  try {
    value = parseBody(headText(body.bytes, body.layout));
  } catch {
    return undefined;
  }
  const checked = depthIssue(value, svc.maxJsonDepth) ? undefined : ScorePlanHeadSchema.safeParse(value);
  if (!checked?.success) return undefined;
  const { groups: _, ...head } = checked.data;
  const parts = splitLayout(body.layout.starts, body.layout.ends, svc.pool.workers);
  // "groups" holds its place among the keys, as in fingerprint(body).
  const fingerprintOf = (judged: Judgement) => fingerprintOfParts(checked.data, judged.json!);
  return { head, groups: { bytes: body.bytes, parts }, json: withKey, fingerprintOf };
}

async function readOnWorker(svc: Service, body: JsonBytes, withKey: boolean, signal: AbortSignal): Promise<Read> {
  const input = { json: body.bytes, maxDepth: svc.maxJsonDepth, workers: Math.max(1, svc.pool.workers), fingerprint: withKey };
  const read = await svc.pool.run('readScorePlanTask', input, signal, body.transfer);
  return { head: read.head, groups: { bytes: read.json, parts: read.parts, plans: read.plans }, json: false, fingerprintOf: () => read.fingerprint! };
}

/** A request error of a body read in parts, as reading the whole body gives it. */
async function asReadWhole(svc: Service, body: JsonBytes, e: unknown, signal: AbortSignal): Promise<never> {
  if (!(e instanceof ServiceError) || (e.code !== 'invalid_json' && e.code !== 'invalid_request')) throw e;
  await readOnWorker(svc, body, false, signal);
  throw e;
}
