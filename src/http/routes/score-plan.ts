import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorResponseSchema } from '../../contracts/errors.js';
import { ScorePlanRequestSchema, ScorePlanResponseSchema } from '../../contracts/score-plan.js';
import { scoreGroups } from '../../scoring/score-groups.js';
import type { ScoringContext } from '../context.js';
import { RequestError } from '../errors.js';

export const scorePlanRoute = (ctx: ScoringContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/score-plan',
      {
        schema: {
          tags: ['PersonalPlan'],
          summary: 'Verifiable GRPO rewards for rollout groups of sampled plans',
          description:
            'Each completion is parsed, checked and scored on three soft axes (structural, personalization, pedagogy), ' +
            'z-scored within its group, composed with the current weights and the hard gate, and turned into a group-relative advantage.',
          body: ScorePlanRequestSchema,
          response: { 200: ScorePlanResponseSchema, 400: ErrorResponseSchema, 413: ErrorResponseSchema },
        },
      },
      async (req) => {
        const plans = req.body.groups.reduce((n, g) => n + g.completions.length, 0);
        if (plans > ctx.requestLimits.maxPlansPerRequest) {
          throw new RequestError(`${plans} completions in one request, over MAX_PLANS_PER_REQUEST=${ctx.requestLimits.maxPlansPerRequest}`, [
            { path: '$.groups', message: `at most ${ctx.requestLimits.maxPlansPerRequest} completions in all` },
          ]);
        }
        const { response, summary } = scoreGroups(req.body, ctx.planLimits, ctx.defaults);
        req.scoreSummary = summary;
        return response;
      },
    );
  };
