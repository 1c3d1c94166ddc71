import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorResponseSchema } from '../../contracts/errors.js';
import { VerifyTurnRequestSchema, VerifyTurnResponseSchema } from '../../contracts/verify-turn.js';
import { rankCandidates } from '../../verify/ranking.js';
import type { ScoringContext } from '../context.js';
import { untilAborted } from '../../runs/turns.js';
import { requestSignal } from '../work/deadline.js';

export const verifyTurnRoute =
  (ctx: ScoringContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/verify-turn',
      {
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
        const signal = requestSignal(req, reply, ctx.deadlineMs, req.body.options?.deadline_ms);
        await untilAborted(ctx.verifier.get(), signal);
        const { candidates, context, task, options } = req.body;
        // One worker verifies the whole request: on the int8 encoder N = 20 takes ~25 ms. Split across idle
        // workers, a lone request answered sooner but encoded the task and the dialogue twice and took both
        // cores for one client (docs/concurrency.md).
        const { verification: result, info } = await ctx.pool.run('verifyTask', { task, context, candidates }, signal);
        const scores = result.candidates.map((c) => c.score);
        const ranking = rankCandidates(scores);
        const best = ranking[0]!;
        return {
          scores,
          ranking: options?.top_k ? ranking.slice(0, options.top_k) : ranking,
          best: { index: best, text: candidates[best]!, score: scores[best]! },
          candidates: result.candidates.map((c, index) => ({ index, ...c })),
          model: info,
          truncated: result.truncated,
          latency_ms: Number((performance.now() - started).toFixed(2)),
        };
      },
    );
  };
