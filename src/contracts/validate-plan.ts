import { z } from 'zod';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE } from './examples.js';
import { PlanSchema } from './plan.js';
import { PaletteSchema } from './palette.js';
import { ProfileSchema } from './profile.js';
import { ScoringOptionsSchema } from './options.js';
import { AxisVectorSchema, GamingFlagsSchema, PaletteInfoSchema, PlanEvaluationFields, ProfileSignalSchema, VersionsSchema } from './results.js';
import { CompletionSchema } from './score-plan.js';

export const ValidatePlanRequestSchema = z
  .object({
    plan: CompletionSchema,
    query: z
      .string()
      .max(65536)
      .optional()
      .describe("The learner's question the plan answers: its words keep a step on topic (off_topic signal), besides programming words"),
    profile: ProfileSchema.optional().describe('Without a profile, R_pers is not computed (components.pers is null)'),
    palette: PaletteSchema.optional(),
    options: ScoringOptionsSchema.pick({ strict: true, lambda_hard: true, reward_profile: true }).optional(),
  })
  .strict()
  .meta({ id: 'ValidatePlanRequest', examples: [{ plan: EXAMPLE_PLAN, profile: EXAMPLE_PROFILE }] });

export const ValidatePlanResponseSchema = z
  .object({
    parsed: z.boolean(),
    plan: PlanSchema.nullable().describe('The plan as read, after the documented normalizations (what the rewards judged); null when it did not parse'),
    score: z.number().describe('0 if gated, else Σ_k w_k R_k with the initial weights'),
    ...PlanEvaluationFields,
    gaming_flags: GamingFlagsSchema,
    signals: z.array(ProfileSignalSchema),
    weights: AxisVectorSchema,
    palette: PaletteInfoSchema,
    versions: VersionsSchema,
  })
  .meta({ id: 'ValidatePlanResponse' });

export type ValidatePlanRequest = z.infer<typeof ValidatePlanRequestSchema>;
export type ValidatePlanResponse = z.infer<typeof ValidatePlanResponseSchema>;
