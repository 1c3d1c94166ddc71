import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { z } from 'zod';
import { ErrorResponseSchema } from '../../contracts/errors.js';
import { ScorePlanRequestSchema, ScorePlanResponseSchema, ScorePlanRewardsResponseSchema, type ScorePlanResponse } from '../../contracts/score-plan.js';
import { IdempotencyConflict } from '../../runs/idempotency.js';
import { scoreInRun } from '../../runs/score-in-run.js';
import { runDeps, type ScoringContext } from '../context.js';
import { requestSignal } from '../work/deadline.js';
import { pooledScorer } from '../work/plan-scorer.js';
import { InvalidRequest } from '../errors.js';
import { LARGE_JSON_CHARS } from '../json-body.js';

export const scorePlanRoute =
  (ctx: ScoringContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/score-plan',
      {
        schema: {
          operationId: 'scorePlan',
          tags: ['PersonalPlan'],
          summary: 'Verifiable GRPO rewards for rollout groups of sampled plans',
          description:
            'Each completion is parsed, checked and scored on three soft axes (structural, personalization, pedagogy), ' +
            'z-scored within its group, composed with the weights of its run step and the hard gate, and turned into a ' +
            'group-relative advantage. With `step`, the plans count toward that step of the run; a retried request ' +
            '(same run, step and Idempotency-Key) gets the same body back and is not counted again.',
          headers: z.object({
            'idempotency-key': z
              .string()
              .min(1)
              .max(200)
              .optional()
              .describe('Makes a retry of this request return the same body and count once')
              .meta({ examples: ['rank0-step12-batch3'] }),
          }),
          body: ScorePlanRequestSchema,
          response: {
            200: z.union([ScorePlanResponseSchema, ScorePlanRewardsResponseSchema]),
            400: ErrorResponseSchema,
            409: ErrorResponseSchema,
            413: ErrorResponseSchema,
            503: ErrorResponseSchema,
            504: ErrorResponseSchema,
          },
        },
      },
      async (req, reply) => {
        const plans = req.body.groups.reduce((n, g) => n + g.completions.length, 0);
        if (plans > ctx.requestLimits.maxPlansPerRequest) {
          throw new InvalidRequest(`${plans} completions in one request, over MAX_PLANS_PER_REQUEST=${ctx.requestLimits.maxPlansPerRequest}`, [
            { path: '$.groups', message: `at most ${ctx.requestLimits.maxPlansPerRequest} completions in all` },
          ]);
        }
        const signal = requestSignal(req, reply, ctx.deadlineMs, req.body.options?.deadline_ms);
        const out = await scoreInRun(req.body, req.headers['idempotency-key'], runDeps(ctx), pooledScorer(req.body, ctx.planLimits, ctx.pool, signal), signal);
        if (out.kind === 'conflict') throw new IdempotencyConflict(out.message);
        // The response is written as JSON text (and kept so for replays): a string with a JSON content type
        // goes out as is, byte for byte the same on every retry.
        const serialized = (body: string) => body as unknown as ScorePlanResponse;
        // Sending is a turn of its own (LARGE_JSON_CHARS).
        if (out.body.length >= LARGE_JSON_CHARS) await nextTurn();
        if (out.kind === 'replay') reply.header('idempotent-replayed', 'true');
        else req.scoreSummary = out.summary;
        return reply.type('application/json; charset=utf-8').send(serialized(out.body));
      },
    );
  };
