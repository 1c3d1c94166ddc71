import { z } from 'zod';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE } from './examples.js';
import { PaletteSchema } from './palette.js';
import { ProfileSchema } from './profile.js';
import { CompletionSchema } from './score-plan.js';
import {
  AxisVectorSchema,
  ComponentsSchema,
  GateSchema,
  NormalizationSchema,
  PaletteInfoSchema,
  ProfileSignalSchema,
  TopologySchema,
  VersionsSchema,
  ViolationSchema,
} from './results.js';

export const ValidatePlanRequestSchema = z
  .object({
    plan: CompletionSchema,
    profile: ProfileSchema.optional().describe('Without a profile, R_pers is not computed (components.pers is null)'),
    palette: PaletteSchema.optional(),
    options: z
      .object({
        strict: z.boolean().optional(),
        lambda_hard: z.number().min(0).max(1e6).optional(),
      })
      .strict()
      .optional(),
  })
  .meta({ id: 'ValidatePlanRequest', examples: [{ plan: EXAMPLE_PLAN, profile: EXAMPLE_PROFILE }] });

export const ValidatePlanResponseSchema = z
  .object({
    parsed: z.boolean(),
    gate: GateSchema,
    raw: AxisVectorSchema,
    score: z.number().describe('0 if gated, else Σ_k w_k R_k with the initial weights'),
    components: ComponentsSchema.nullable(),
    violations: z.array(ViolationSchema),
    normalizations: z.array(NormalizationSchema),
    topology: TopologySchema.nullable(),
    signals: z.array(ProfileSignalSchema),
    weights: AxisVectorSchema,
    palette: PaletteInfoSchema,
    versions: VersionsSchema,
  })
  .meta({ id: 'ValidatePlanResponse' });

export type ValidatePlanRequest = z.infer<typeof ValidatePlanRequestSchema>;
export type ValidatePlanResponse = z.infer<typeof ValidatePlanResponseSchema>;
