import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorResponseSchema } from '../../contracts/errors.js';
import { OpenRlhfQuerySchema, OpenRlhfRequestSchema, OpenRlhfResponseSchema } from '../../contracts/openrlhf.js';
import type { Service } from '../../service/context.js';
import { scoreSamples } from '../../service/score-plan/score-samples.js';
import { requestSignal } from '../deadline.js';

export const openRlhfRoute =
  (ctx: Service): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/openrlhf/reward',
      {
        config: { compute: true },
        schema: {
          operationId: 'openrlhfReward',
          tags: ['trainers'],
          summary: "OpenRLHF's remote reward model protocol (--reward.remote_url http://host:8080/openrlhf/reward?run_id=…)",
          description:
            'Each sample is scored alone: rewards are Σ_k w_k R_k + R_hard with the run weights (no group is visible, so no ' +
            'z-score); OpenRLHF group-normalizes them itself. Samples count toward the run in automatic steps: one per ' +
            'request, or `samples_per_step` plans per step when the run sets it.',
          querystring: OpenRlhfQuerySchema,
          body: OpenRlhfRequestSchema,
          response: { 200: OpenRlhfResponseSchema, 400: ErrorResponseSchema, 503: ErrorResponseSchema, 504: ErrorResponseSchema },
        },
      },
      async (req, reply) => {
        const scored = await scoreSamples(ctx, req.body, req.query.run_id, req.query.step, requestSignal(req, reply, ctx.deadlineMs));
        // The answer to an empty request must still be well formed.
        if (scored === null)
          return { rewards: [], scores: [], extra_logs: { struct: [], pers: [], ped: [], gated: [], flagged: [], step: [], profile_ignored: [] } };
        const { scores, step, summary } = scored;
        req.scoreSummary = summary;
        return {
          rewards: scores.map((s) => s.reward),
          scores: scores.map((s) => s.score),
          extra_logs: {
            struct: scores.map((s) => s.raw.struct),
            pers: scores.map((s) => s.raw.pers),
            ped: scores.map((s) => s.raw.ped),
            gated: scores.map((s) => (s.gate.failed ? 1 : 0)),
            flagged: scores.map((s) => (s.gaming_flags.length > 0 ? 1 : 0)),
            step: scores.map(() => step),
            profile_ignored: scores.map((s) => (s.profileIgnored ? 1 : 0)),
          },
        };
      },
    );
  };
