import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorResponseSchema } from '../../contracts/errors.js';
import { FitRequestSchema, FitResponseSchema, TraceKnowledgeRequestSchema, TraceKnowledgeResponseSchema } from '../../contracts/trace-knowledge.js';
import { keepJsonBytes } from '../../request-body/fastify-parsers.js';
import type { JsonBytes } from '../../request-body/json.js';
import type { Service } from '../../service/context.js';
import { fitKnowledge, traceKnowledge } from '../../service/trace-knowledge.js';
import { requestSignal } from '../deadline.js';

export const traceKnowledgeRoute =
  (ctx: Service): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/trace-knowledge',
      {
        config: { compute: true },
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
      async (req, reply) => traceKnowledge(ctx, req.body, requestSignal(req, reply, ctx.deadlineMs, req.body.options?.deadline_ms)),
    );
    // The body goes to the worker as the client's bytes: parsing and validating a large log held the main
    // thread for a long stretch.
    await app.register(async (fit) => {
      const { validatorCompiler } = keepJsonBytes(fit);
      fit.post(
        '/trace-knowledge/fit',
        {
          config: { compute: true },
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
          const body = req.body as unknown as JsonBytes;
          const fitted = await fitKnowledge(ctx, body, Date.now() - reply.elapsedTime, requestSignal(req, reply, ctx.deadlineMs));
          return { ...fitted, latency_ms: Number((performance.now() - started).toFixed(2)) };
        },
      );
    });
  };
