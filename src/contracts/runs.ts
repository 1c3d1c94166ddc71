import { z } from 'zod';
import { AxisVectorSchema } from './results.js';
import { RewardProfileSchema } from './gaming.js';

const unit = z.number().min(0).max(1);

// Per-run hyperparameters: PersonalPlan's Reward-Adaptive GRPO (§3.3, Appendix A.1) and the scoring options.
const RunConfigFields = z.object({
  alpha: z.number().gt(0).max(1).describe('EMA rate α'),
  t_warm: z.number().int().min(0).describe('T_warm: the first step after which weights may refresh'),
  t_refresh: z.number().int().min(1).describe('T_refresh: steps between refreshes'),
  rho: unit.describe('ρ: target level of each axis EMA'),
  eta_w: z.number().min(0).max(100).describe('η_w: weight step size'),
  w_min: unit.describe('Lower bound of every weight (3·w_min ≤ 1); each refresh keeps the weights within [w_min, w_max]'),
  w_max: unit.describe('Upper bound of every weight (3·w_max ≥ 1)'),
  w0: z
    .object({ struct: z.number().min(0).max(1e6), pers: z.number().min(0).max(1e6), ped: z.number().min(0).max(1e6) })
    .strict()
    .describe('Initial weights (normalized to sum 1)'),
  lambda_hard: z.number().min(0).max(1e6),
  reward_profile: RewardProfileSchema,
  epsilon: z.number().gt(0).max(1),
  tau: z.number().min(0).max(1),
  ddof: z.union([z.literal(0), z.literal(1)]),
  samples_per_step: z
    .number()
    .int()
    .min(1)
    .nullable()
    .describe('For trainers that send no step (OpenRLHF): this many step-less plans form one step; null: each request is its own step'),
});

// Three weights (struct, pers, ped) summing to 1 fit within [w_min, w_max] only when 3·w_min ≤ 1 ≤ 3·w_max.
const AXES = 3;
// w0 is normalized before it is compared with the bounds: its sum's rounding must not refuse a w0 on a bound.
const ROUNDING = 1e-12;

export const RunConfigSchema = RunConfigFields.refine((c) => c.w_min <= c.w_max, { message: 'w_min must not exceed w_max', path: ['w_min'] })
  .refine((c) => AXES * c.w_min <= 1, { message: `w_min must be at most 1/${AXES}: the ${AXES} weights sum to 1`, path: ['w_min'] })
  .refine((c) => AXES * c.w_max >= 1, { message: `w_max must be at least 1/${AXES}: the ${AXES} weights sum to 1`, path: ['w_max'] })
  .refine((c) => c.w0.struct + c.w0.pers + c.w0.ped > 0, {
    message: 'w0 must have a positive sum',
    path: ['w0'],
  })
  .refine(
    (c) => {
      const sum = c.w0.struct + c.w0.pers + c.w0.ped;
      // A w0 that sums to 0, or bounds no weights fit, are refused above: only a w0 the bounds could hold is judged.
      const judged = sum > 0 && AXES * c.w_min <= 1 && AXES * c.w_max >= 1;
      return !judged || [c.w0.struct, c.w0.pers, c.w0.ped].every((w) => w / sum >= c.w_min - ROUNDING && w / sum <= c.w_max + ROUNDING);
    },
    { message: 'w0, normalized to sum 1, must lie within [w_min, w_max]: it is the weights of the first steps', path: ['w0'] },
  )
  .meta({ id: 'RunConfig' });

/** PUT /runs/:id body: any subset of the configuration; omitted fields keep their value (or the default). */
export const RunConfigPatchSchema = RunConfigFields.partial()
  .strict()
  .meta({ id: 'RunConfigPatch', examples: [{ t_warm: 20, t_refresh: 40, lambda_hard: 5 }] });

export type RunConfig = z.infer<typeof RunConfigSchema>;
export type RunConfigPatch = z.infer<typeof RunConfigPatchSchema>;

export const DEFAULT_RUN_CONFIG: RunConfig = {
  alpha: 0.1,
  t_warm: 50,
  t_refresh: 100,
  rho: 0.4,
  eta_w: 0.3,
  w_min: 0.05,
  w_max: 0.7,
  w0: { struct: 1 / 3, pers: 1 / 3, ped: 1 / 3 },
  lambda_hard: 10,
  reward_profile: 'paper',
  epsilon: 1e-6,
  tau: 1e-6,
  ddof: 0,
  samples_per_step: null,
};

export const RunIdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits and . _ : - only')
  .describe('Run identifier');

/**
 * The run Swagger UI's "Try it out" fills in where a route names one: a run of its own, so that trying the
 * API never writes to the `default` run (or any other) a trainer shares.
 */
export const EXAMPLE_RUN_ID = 'swagger-example';
export const ExampleRunIdSchema = RunIdSchema.meta({ examples: [EXAMPLE_RUN_ID] });

export const HistoryRowSchema = z
  .object({
    step: z.number().int(),
    plans: z.number().int(),
    gated: z.number().int(),
    gated_fraction: z.number(),
    requests: z.number().int(),
    late_plans: z.number().int().describe('Plans that arrived after the step was finalized: scored, not folded in'),
    mean: AxisVectorSchema.describe('Raw mean of each axis over every plan of the step'),
    weights: AxisVectorSchema.describe('Weights every plan of the step was composed with'),
    ema: AxisVectorSchema.describe('EMA after this step'),
    weights_after: AxisVectorSchema.describe('Weights in force for the next step'),
    refreshed: z.boolean(),
    finalized_at: z.string(),
    gate_reasons: z
      .record(z.string(), z.number().int())
      .nullable()
      .describe('Gated plans of the step per gate reason (a plan with two reasons counts in both); null for steps finalized before the field existed'),
    diversity: z
      .number()
      .nullable()
      .describe(
        'Mean over the step’s groups of the mean pairwise structural distance of their plans (1 − Jaccard of role → role dependency edges): 0 when every group’s plans share one structure. null when no group had two readable plans, or the step was finalized before the field existed',
      ),
    flagged: z
      .number()
      .int()
      .nullable()
      .describe('Plans of the step that raised any gaming signal; null for steps finalized (or begun) before the field existed'),
    gaming: z
      .record(z.string(), z.number().int())
      .nullable()
      .describe(
        'Plans of the step per gaming signal code (GamingSignal.code; a plan with two signals counts in both); null for steps finalized (or begun) before the field existed',
      ),
    aboutness: z
      .number()
      .nullable()
      .describe(
        'Mean aboutness G (each plan’s `aboutness`, 0–1) over the step’s plans that have one (those that parsed); null when none has, or for steps finalized (or begun) before the field existed',
      ),
  })
  .meta({ id: 'StepHistory' });

const OpenStepSchema = z
  .object({ step: z.number().int(), plans: z.number().int(), gated: z.number().int(), requests: z.number().int(), weights: AxisVectorSchema })
  .meta({ id: 'OpenStep' });

export const RunViewSchema = z
  .object({
    id: z.string(),
    config: RunConfigSchema,
    weights: AxisVectorSchema.describe('Weights in force for the next step to begin'),
    ema: AxisVectorSchema.nullable(),
    last_finalized_step: z.number().int().nullable(),
    finalized_steps: z.number().int(),
    open_step: OpenStepSchema.nullable().describe('The step being accumulated (durable; folded into the EMA when finalized)'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Run' });

export const RunStepInfoSchema = z
  .object({
    id: z.string(),
    step: z.number().int(),
    status: z.enum(['open', 'late', 'auto']).describe('open: counted into the step; late: step already finalized, scored and not counted; auto: no step given'),
    counted: z.boolean().describe('Whether these plans enter the step means (false for late requests)'),
    weights: AxisVectorSchema,
    finalized: z.array(HistoryRowSchema).describe('Steps this request finalized'),
  })
  .meta({ id: 'RunStepInfo' });

export type HistoryRow = z.infer<typeof HistoryRowSchema>;
export type RunView = z.infer<typeof RunViewSchema>;
