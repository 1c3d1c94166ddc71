import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorResponseSchema } from '../../contracts/errors.js';
import { ValidatePlanRequestSchema, ValidatePlanResponseSchema } from '../../contracts/validate-plan.js';
import { validateOne } from '../../scoring/validate-one.js';
import type { Service } from '../../service/context.js';

export const validatePlanRoute =
  (ctx: Service): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/validate-plan',
      {
        schema: {
          operationId: 'validatePlan',
          tags: ['PersonalPlan'],
          summary: 'Static checks, raw rewards and topology of one plan, without a group',
          body: ValidatePlanRequestSchema,
          response: { 200: ValidatePlanResponseSchema, 400: ErrorResponseSchema, 413: ErrorResponseSchema },
        },
      },
      async (req) => validateOne(req.body, ctx.planLimits, ctx.defaults),
    );
  };
