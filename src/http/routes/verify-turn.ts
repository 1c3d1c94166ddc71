import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorResponseSchema } from '../../contracts/errors.js';
import { VerifyTurnRequestSchema, VerifyTurnResponseSchema } from '../../contracts/verify-turn.js';
import { joinVerifications } from '../../verify/model.js';
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
        const parts = await Promise.all(halves(candidates).map((c) => ctx.pool.run('verifyTask', { task, context, candidates: c }, signal)));
        const result = joinVerifications(parts.map((p) => p.verification));
        const info = parts[0]!.info;
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

    /**
     * A request with many candidates that finds every worker idle is verified in two halves, one per worker
     * (each encodes the task, the context and its half): N = 20 with every text new, server p50 38.9–48.7
     * against 56.3–62.5 ms in one piece (docs/performance.md). A busy pool gets it whole: each half encoding
     * the task and the context again would cost the other requests. Each candidate is scored on its own,
     * so the halves give the scores of one piece.
     */
    function halves(candidates: string[]): string[][] {
      const status = ctx.pool.status();
      if (candidates.length < SPLIT_FROM_CANDIDATES || status.workers < 2 || status.running + status.queued > 0) return [candidates];
      const mid = Math.ceil(candidates.length / 2);
      return [candidates.slice(0, mid), candidates.slice(mid)];
    }
  };

const SPLIT_FROM_CANDIDATES = 16;
