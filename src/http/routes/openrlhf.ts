import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorResponseSchema } from '../../contracts/errors.js';
import { IdempotencyHeadersSchema } from '../../contracts/idempotency.js';
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
            'request, or `samples_per_step` plans per step when the run sets it. Every request counts its samples, identical ' +
            'ones included; a retry is recognised only by its Idempotency-Key (counted once, answered `replayed`). OpenRLHF’s ' +
            'HTTP protocol sends none: its retries count again — the Python reward function (tutor_reward.openrlhf, docs/trainers.md) sends one.',
          querystring: OpenRlhfQuerySchema,
          headers: IdempotencyHeadersSchema,
          body: OpenRlhfRequestSchema,
          response: { 200: OpenRlhfResponseSchema, 400: ErrorResponseSchema, 503: ErrorResponseSchema, 504: ErrorResponseSchema },
        },
      },
      async (req, reply) => {
        const { run_id: runId, step: at, count } = req.query;
        const scored = await scoreSamples(
          ctx,
          req.body,
          { runId, step: at, count, idempotencyKey: req.headers['idempotency-key'] },
          requestSignal(req, reply, ctx.deadlineMs),
        );
        // The answer to an empty request must still be well formed.
        if (scored === null)
          return {
            rewards: [],
            scores: [],
            extra_logs: { struct: [], pers: [], ped: [], gated: [], flagged: [], aboutness: [], step: [], counted: [], replayed: [], profile_ignored: [] },
          };
        const { scores, step, summary, counted, replayed, profileIgnored } = scored;
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
            aboutness: scores.map((s) => s.aboutness ?? 0),
            step: scores.map(() => step),
            counted: scores.map(() => (counted ? 1 : 0)),
            replayed: scores.map(() => (replayed ? 1 : 0)),
            profile_ignored: profileIgnored.map((ignored) => (ignored ? 1 : 0)),
          },
        };
      },
    );
  };
