import { ScorePlanHeadSchema, type ScorePlanRequest } from '../../contracts/score-plan.js';
import { ServiceError } from '../../common/errors.js';
import { headText } from '../../request-body/groups-layout.js';
import { depthIssue, GroupsBytes, JsonBytes, parseBody } from '../../request-body/json.js';
import { bytesFingerprint, fingerprint } from '../../runs/idempotency.js';
import type { Service } from '../context.js';
import { type RunScoring, scoreInRun } from './in-run.js';
import { pooledScorer, type ScorableGroups } from './pooled-scorer.js';
import type { Timings } from '../../common/timings.js';
import { checkPlanCount, completionCount, splitLayout } from './split-groups.js';

type Head = Omit<ScorePlanRequest, 'groups'>;

interface Read {
  head: Head;
  groups: ScorableGroups;
  /** The fingerprint of the request's content, as receipts stored before fingerprints were of bytes have it. */
  contentFingerprint: (signal: AbortSignal) => Promise<string>;
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
  bodySha256: Uint8Array | undefined,
  signalFor: (bodyDeadlineMs?: number) => AbortSignal,
  timings: Timings,
): Promise<RunScoring> {
  const inParts = body instanceof GroupsBytes ? readHead(svc, body) : undefined;
  // A body read whole on a worker names its run only once read: its place in arrival order is kept meanwhile.
  const arrival = body instanceof JsonBytes && !inParts ? svc.turns.arrive() : undefined;
  try {
    const read =
      inParts ?? (body instanceof JsonBytes ? await timings.time('read', () => readOnWorker(svc, body, key !== undefined, signalFor())) : parsed(body));
    const { head, groups } = read;
    if (groups.plans !== undefined) checkPlanCount(groups.plans, svc.requestLimits.maxPlansPerRequest);
    const signal = signalFor(head.options?.deadline_ms);
    const settings = {
      palette: head.palette,
      limits: svc.planLimits,
      maxDepth: svc.maxJsonDepth,
      maxPlans: svc.requestLimits.maxPlansPerRequest,
      planJudge: svc.planJudge,
    };
    // keepLargeJson hashes the body of every request with a key.
    if (key !== undefined && bodySha256 === undefined) throw new Error('no SHA-256 of the body of a request with an Idempotency-Key');
    const idempotency = key === undefined ? undefined : { key, fingerprint: bytesFingerprint(bodySha256!), contentFingerprint: read.contentFingerprint };
    const scoring = scoreInRun(head, idempotency, svc, pooledScorer(head, groups, settings, svc.pool, signal), signal, timings, arrival);
    // A body whose groups its workers read gets the 400 it would get read whole: the issues of all of it, in order.
    return inParts ? await scoring.catch((e: unknown) => asReadWhole(svc, body as JsonBytes, e, signalFor())) : await scoring;
  } finally {
    arrival?.leave();
  }
}

function parsed(body: ScorePlanRequest): Read {
  const { groups, ...head } = body;
  return { head, groups: { groups, plans: completionCount(groups) }, contentFingerprint: async () => fingerprint(body) };
}

/**
 * The head of a body whose groups the workers read, checked here; undefined when it does not read as the
 * head of a valid request, for the body to be read whole (the error it gets is then the one it would get).
 */
function readHead(svc: Service, body: GroupsBytes): Read | undefined {
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
  // The workers share the body: it is still whole to be read again.
  const contentFingerprint = async (signal: AbortSignal) => (await readOnWorker(svc, body, true, signal)).contentFingerprint(signal);
  return { head, groups: { bytes: body.bytes, parts }, contentFingerprint };
}

/** The body read whole on a worker; with a key, the fingerprint of its content taken there, since its bytes are moved to it. */
async function readOnWorker(svc: Service, body: JsonBytes, withKey: boolean, signal: AbortSignal): Promise<Read> {
  const input = { json: body.bytes, maxDepth: svc.maxJsonDepth, workers: Math.max(1, svc.pool.workers), fingerprint: withKey };
  const read = await svc.pool.run('readScorePlanTask', input, signal, body.transfer);
  return { head: read.head, groups: { bytes: read.json, parts: read.parts, plans: read.plans }, contentFingerprint: async () => read.fingerprint! };
}

/** A request error of a body read in parts, as reading the whole body gives it. */
async function asReadWhole(svc: Service, body: JsonBytes, e: unknown, signal: AbortSignal): Promise<never> {
  if (!(e instanceof ServiceError) || (e.code !== 'invalid_json' && e.code !== 'invalid_request')) throw e;
  await readOnWorker(svc, body, false, signal);
  throw e;
}
