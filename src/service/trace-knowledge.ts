import { untilAborted } from '../common/errors.js';
import type { TraceKnowledgeRequest } from '../contracts/trace-knowledge.js';
import { traceInputOf } from '../tracing/request.js';
import type { JsonBytes } from '../request-body/json.js';
import type { Service } from './context.js';

/** /trace-knowledge: the dialogue's new turns traced on a worker with the service's encoder. */
export async function traceKnowledge(svc: Service, body: TraceKnowledgeRequest, signal: AbortSignal) {
  const input = traceInputOf(body);
  await untilAborted(svc.encoder.get(), signal);
  const { result, encoder } = await svc.pool.run('traceTask', input, signal);
  return { ...result, turns_total: body.context.length, params: input.params, threshold: input.threshold, semantic: input.semantic, encoder };
}

/**
 * /trace-knowledge/fit: the body's bytes read, validated and fitted on a worker (a large log parsed
 * here would hold the main thread), within the deadline counted from `arrivedAt` (Date.now()).
 */
export async function fitKnowledge(svc: Service, body: JsonBytes, arrivedAt: number, signal: AbortSignal) {
  const input = { json: body.bytes, maxDepth: svc.maxJsonDepth, arrivedAt, deadlineMs: svc.deadlineMs };
  const { rows, fits } = await svc.pool.run('fitJsonTask', input, signal, body.transfer);
  const skills = fits.map(([skill, f]) => ({
    skill,
    params: f.params,
    log_likelihood: f.logLikelihood,
    iterations: f.iterations,
    restarts: f.restarts,
    sequences: f.sequences,
    observations: f.observations,
  }));
  return { skills, log_likelihood: skills.reduce((s, f) => s + f.log_likelihood, 0), rows };
}
