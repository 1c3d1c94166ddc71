import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorResponseSchema } from '../../contracts/errors.js';
import { VerifyTurnRequestSchema, VerifyTurnResponseSchema } from '../../contracts/verify-turn.js';
import type { Service } from '../../service/context.js';
import { verifyTurn } from '../../service/verify-turn.js';
import { requestSignal } from '../deadline.js';

export const verifyTurnRoute =
  (ctx: Service): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/verify-turn',
      {
        config: { compute: true },
        schema: {
          operationId: 'verifyTurn',
          tags: ['Traver'],
          summary: "Score candidate tutor turns with the turn verifier (Traver's V_θ) and rank them",
          description:
            'Each candidate gets its predicted turn value v ∈ [0, 1] (Traver eqs. 1–2 are what the verifier was trained to predict). ' +
            'The task and the context are encoded once per request. A context too long for the model is cut from the left and reported in `truncated`.',
          body: VerifyTurnRequestSchema,
          response: { 200: VerifyTurnResponseSchema, 400: ErrorResponseSchema, 413: ErrorResponseSchema, 503: ErrorResponseSchema, 504: ErrorResponseSchema },
        },
      },
      async (req, reply) => {
        const started = performance.now();
        const verified = await verifyTurn(ctx, req.body, requestSignal(req, reply, ctx.deadlineMs, req.body.options?.deadline_ms));
        return { ...verified, latency_ms: Number((performance.now() - started).toFixed(2)) };
      },
    );
  };
