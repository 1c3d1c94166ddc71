import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorResponseSchema } from '../../contracts/errors.js';
import type { GateOptions } from '../../scoring/evaluate-plan.js';
import { OpenRlhfQuerySchema, OpenRlhfRequestSchema, OpenRlhfResponseSchema } from '../../contracts/openrlhf.js';
import { scoreSamplesInRun } from '../../runs/score-in-run.js';
import { samplesOf } from '../../trainers/openrlhf.js';
import { runDeps, type ScoringContext } from '../context.js';
import { requestSignal } from '../work/deadline.js';
import { InvalidRequest } from '../errors.js';

export const openRlhfRoute =
  (ctx: ScoringContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/openrlhf/reward',
      {
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
        const { query, prompts, labels } = req.body;
        for (const [name, list] of [
          ['prompts', prompts],
          ['labels', labels],
        ] as const) {
          if (list !== undefined && list.length !== query.length) {
            throw new InvalidRequest(`${name} has ${list.length} entries for ${query.length} queries`, [
              { path: `$.${name}`, message: `must have ${query.length} entries` },
            ]);
          }
        }
        if (query.length > ctx.requestLimits.maxPlansPerRequest) {
          throw new InvalidRequest(`${query.length} samples, over MAX_PLANS_PER_REQUEST`, [
            { path: '$.query', message: `at most ${ctx.requestLimits.maxPlansPerRequest}` },
          ]);
        }
        // OpenRLHF with several --reward.remote_url entries sends each sample to the first and empty lists to
        // the others; the answer must be well formed, and no step is opened for nothing.
        if (query.length === 0)
          return { rewards: [], scores: [], extra_logs: { struct: [], pers: [], ped: [], gated: [], flagged: [], step: [], profile_ignored: [] } };
        const signal = requestSignal(req, reply, ctx.deadlineMs);
        const samples = samplesOf(req.body);
        const judge = (gate: GateOptions) =>
          ctx.pool.run(
            'evaluateSamplesTask',
            { samples: samples.map(({ completion, profile, query }) => ({ completion, profile, query })), limits: ctx.planLimits, gate },
            signal,
          );
        const { scores, step, summary } = await scoreSamplesInRun(req.query.run_id, req.query.step, runDeps(ctx), judge, signal);
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
            profile_ignored: samples.map((s) => (s.profileIgnored ? 1 : 0)),
          },
        };
      },
    );
  };
