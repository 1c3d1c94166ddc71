import { InvalidRequest } from '../common/errors.js';
import { jsonPath } from '../common/json-path.js';
import { DEFAULT_PARAMS, DEFAULT_SEMANTIC, DEFAULT_THRESHOLD, type TraceKnowledgeRequest } from '../contracts/trace-knowledge.js';
import { type BktParams, validateParams } from './bkt.js';
import { kcsOfTask, type KnowledgeComponent } from './kcs.js';
import type { TraceInput } from './trace.js';

/**
 * What a /trace-knowledge request asks to trace, its defaults filled in: the KCs (given, or derived from the
 * task), the estimate it starts from and the turns still to read. The schema has checked what it can alone;
 * what needs the KCs or the BKT model's own rule (guess + slip < 1, bkt.ts) is checked here.
 */
export function traceInputOf(body: TraceKnowledgeRequest): Omit<TraceInput, 'embed'> {
  const kcs = knowledgeComponents(body);
  const params: BktParams = { ...DEFAULT_PARAMS, ...body.params };
  try {
    validateParams(params);
  } catch (e) {
    throw new InvalidRequest((e as Error).message, [{ path: '$.params', message: (e as Error).message }]);
  }
  const threshold = body.threshold ?? DEFAULT_THRESHOLD;
  return {
    kcs,
    context: body.context,
    from: body.previous_turns ?? 0,
    initial: initialEstimate(body.previous, kcs, params, threshold),
    params,
    threshold,
    semantic: { ...DEFAULT_SEMANTIC, ...body.semantic },
  };
}

function knowledgeComponents(body: TraceKnowledgeRequest): KnowledgeComponent[] {
  if (body.kcs) return body.kcs;
  const task = body.task!;
  const kcs = kcsOfTask({ dependencies: task.dependencies ?? task.dependency_all, solution_steps: task.solution_steps ?? task.reference_steps });
  if (kcs.length === 0) throw new InvalidRequest('the task has no knowledge components', [{ path: '$.task', message: 'no dependency or solution step found' }]);
  return kcs;
}

/** `previous` as p(known) per KC: a known KC at the threshold, an unknown one at the prior. */
function initialEstimate(previous: TraceKnowledgeRequest['previous'], kcs: KnowledgeComponent[], params: BktParams, threshold: number): Map<string, number> {
  const ids = new Set(kcs.map((k) => k.id));
  const entries: [string, number, string][] =
    previous === undefined
      ? []
      : 'known' in previous && Array.isArray(previous.known)
        ? [
            ...(previous.known as string[]).map((id, i): [string, number, string] => [id, threshold, jsonPath(['previous', 'known', i])]),
            ...(previous.unknown as string[]).map((id, i): [string, number, string] => [id, params.prior, jsonPath(['previous', 'unknown', i])]),
          ]
        : Object.entries(previous as Record<string, number>).map(([id, p]): [string, number, string] => [id, p, jsonPath(['previous', id])]);
  const unknownId = entries.find(([id]) => !ids.has(id));
  if (unknownId) {
    throw new InvalidRequest(`previous names KC "${unknownId[0]}", which this task does not have`, [{ path: unknownId[2], message: 'no such KC' }]);
  }
  return new Map(entries.map(([id, p]) => [id, p]));
}
