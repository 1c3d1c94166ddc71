import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorResponseSchema } from '../../contracts/errors.js';
import {
  FitRequestSchema,
  FitResponseSchema,
  TraceKnowledgeRequestSchema,
  TraceKnowledgeResponseSchema,
  type TraceKnowledgeRequest,
} from '../../contracts/trace-knowledge.js';
import { DEFAULT_PARAMS, validateParams, type BktParams } from '../../tracing/bkt.js';
import { DEFAULT_SEMANTIC } from '../../tracing/evidence.js';
import { kcsOfTask, type KnowledgeComponent } from '../../tracing/kcs.js';
import { jsonPath } from '../../common/json-path.js';
import type { ScoringContext } from '../context.js';
import { InvalidRequest } from '../errors.js';
import { untilAborted } from '../../runs/turns.js';
import { requestSignal } from '../work/deadline.js';
import { TaskRefused } from '../work/pool.js';
import { type JsonBytes, keepJsonBytes } from '../raw-body.js';

const DEFAULT_THRESHOLD = 0.95;

export const traceKnowledgeRoute =
  (ctx: ScoringContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/trace-knowledge',
      {
        schema: {
          operationId: 'traceKnowledge',
          tags: ['Traver'],
          summary: 'Which knowledge components the student knows after each turn: Bayesian knowledge tracing driven by the dialogue',
          description:
            'Stateless: pass the returned estimate back as `previous` with `previous_turns` = `turns_total`, and only the new turns are read. ' +
            'Evidence rules: a student turn that uses or names a KC is a correct observation, one that says it is confused about it an incorrect one; ' +
            'a tutor turn that names it is an opportunity to learn (the transition alone).',
          body: TraceKnowledgeRequestSchema,
          response: {
            200: TraceKnowledgeResponseSchema,
            400: ErrorResponseSchema,
            413: ErrorResponseSchema,
            503: ErrorResponseSchema,
            504: ErrorResponseSchema,
          },
        },
      },
      async (req, reply) => {
        const body = req.body;
        const signal = requestSignal(req, reply, ctx.deadlineMs, body.options?.deadline_ms);
        const kcs = knowledgeComponents(body);
        const params = bktParams(body.params);
        const from = body.previous_turns ?? 0;
        if (from > body.context.length)
          throw new InvalidRequest('previous_turns is past the end of the context', [
            { path: '$.previous_turns', message: `must be ≤ ${body.context.length}, the number of turns sent` },
          ]);
        const threshold = body.threshold ?? DEFAULT_THRESHOLD;
        const semantic = { ...DEFAULT_SEMANTIC, ...body.semantic };
        await untilAborted(ctx.encoder.get(), signal);
        const initial = initialEstimate(body.previous, kcs, params, threshold);
        const { result, encoder } = await ctx.pool.run('traceTask', { kcs, context: body.context, from, initial, params, threshold, semantic }, signal);
        return { ...result, turns_total: body.context.length, params, threshold, semantic, encoder };
      },
    );
    // The body goes to the worker as the client's bytes: parsing and validating a 200,000-row log took ~0.6 s
    // of the main thread.
    await app.register(async (fit) => {
      const { validatorCompiler } = keepJsonBytes(fit);
      fit.post(
        '/trace-knowledge/fit',
        {
          validatorCompiler,
          schema: {
            operationId: 'fitKnowledgeTracing',
            tags: ['Traver'],
            summary: 'Fit BKT parameters per skill from response logs by expectation–maximization',
            description:
              'Baum–Welch per skill with random restarts (the best log-likelihood wins) as pyBKT fits; guess and slip bounded (0.3 by default). ' +
              'Read, validated and fitted on a worker of the pool, bounded by the request deadline and stopped when the client leaves, so the service keeps answering during a large fit.',
            body: FitRequestSchema,
            response: { 200: FitResponseSchema, 400: ErrorResponseSchema, 413: ErrorResponseSchema, 503: ErrorResponseSchema, 504: ErrorResponseSchema },
          },
        },
        async (req, reply) => {
          const started = performance.now();
          // keepJsonBytes: the body is the client's bytes, whatever the schema's type says.
          const { bytes } = req.body as unknown as JsonBytes;
          const signal = requestSignal(req, reply, ctx.deadlineMs);
          const input = { json: bytes, maxDepth: ctx.maxJsonDepth, arrivedAt: Date.now() - reply.elapsedTime, deadlineMs: ctx.deadlineMs };
          const { rows, fits } = await ctx.pool.run('fitJsonTask', input, signal, [bytes.buffer]).catch((e: unknown) => {
            throw e instanceof TaskRefused && e.failure === 'fit-input' ? new InvalidRequest(e.message, [{ path: '$.rows', message: e.message }]) : e;
          });
          const skills = fits.map(([skill, f]) => ({
            skill,
            params: f.params,
            log_likelihood: f.logLikelihood,
            iterations: f.iterations,
            restarts: f.restarts,
            sequences: f.sequences,
            observations: f.observations,
          }));
          return {
            skills,
            log_likelihood: skills.reduce((s, f) => s + f.log_likelihood, 0),
            rows,
            latency_ms: Number((performance.now() - started).toFixed(2)),
          };
        },
      );
    });
  };

function knowledgeComponents(body: TraceKnowledgeRequest): KnowledgeComponent[] {
  if ((body.task === undefined) === (body.kcs === undefined)) {
    throw new InvalidRequest('give either task or kcs', [{ path: '$', message: 'exactly one of task and kcs is required' }]);
  }
  const kcs =
    body.kcs ??
    kcsOfTask({ dependencies: body.task!.dependencies ?? body.task!.dependency_all, solution_steps: body.task!.solution_steps ?? body.task!.reference_steps });
  if (kcs.length === 0) throw new InvalidRequest('the task has no knowledge components', [{ path: '$.task', message: 'no dependency or solution step found' }]);
  const seen = new Set<string>();
  kcs.forEach((kc, i) => {
    if (seen.has(kc.id)) throw new InvalidRequest(`duplicate KC id "${kc.id}"`, [{ path: `$.kcs[${i}].id`, message: 'KC ids must be unique' }]);
    seen.add(kc.id);
  });
  return kcs;
}

function bktParams(given: Partial<BktParams> | undefined): BktParams {
  const params = { ...DEFAULT_PARAMS, ...given };
  try {
    validateParams(params);
  } catch (e) {
    throw new InvalidRequest((e as Error).message, [{ path: '$.params', message: (e as Error).message }]);
  }
  return params;
}

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
  if (unknownId)
    throw new InvalidRequest(`previous names KC "${unknownId[0]}", which this task does not have`, [{ path: unknownId[2], message: 'no such KC' }]);
  return new Map(entries.map(([id, p]) => [id, p]));
}
