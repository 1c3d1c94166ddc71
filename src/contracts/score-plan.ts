import { z } from 'zod';
import { EXAMPLE_SCORE_REQUEST } from './examples.js';
import { RunIdSchema, RunStepInfoSchema } from './runs.js';
import { ResolvedOptionsSchema, ScoringOptionsSchema } from './options.js';
import { PaletteSchema } from './palette.js';
import { ProfileSchema } from './profile.js';
import { AxisVectorSchema, GamingFlagsSchema, PaletteInfoSchema, PlanEvaluationFields, ProfileSignalSchema, VersionsSchema } from './results.js';

// Anything is accepted as a completion: a plan that is not a string or object is gated as a parse error,
// never a request error (a malformed plan inside a valid request is scored, not rejected).
export const CompletionSchema = z.unknown().meta({
  id: 'Completion',
  description: 'The planner output: raw model text (bare JSON, a ```json fence, prose around it) or a plan object',
  anyOf: [{ type: 'string' }, { type: 'object' }],
});

/** One rollout group of a request. */
export const ScorePlanGroupSchema = z
  .object({
    id: z.string().max(200).optional().describe('Caller label for the rollout group, echoed back'),
    query: z.string().max(65536).describe("The learner's question the plans answer"),
    profile: ProfileSchema,
    reference: z
      .union([z.string().max(65536), z.array(z.string().max(8192)).max(512)])
      .optional()
      .describe(
        "What a good answer to the query says, as an SFT data set has it: a reference plan's steps or a worked solution. Under reward_profile guarded a plan is also credited for covering the reference's content (docs/rewards.md §11j)",
      ),
    completions: z.array(CompletionSchema).min(1).describe('The g sampled plans of this rollout group'),
  })
  .strict();

export const ScorePlanRequestSchema = z
  .object({
    groups: z
      .array(ScorePlanGroupSchema)
      .min(1)
      .describe('Rollout groups; at most MAX_PLANS_PER_REQUEST completions in all. Keep each group in one request: z-scores are taken within it'),
    run_id: RunIdSchema.nullable()
      .optional()
      .describe(
        'Training run whose adaptive weights compose the rewards and whose step this counts toward (default "default"); null: stateless, initial weights, nothing recorded',
      ),
    step: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe("The trainer's global step; omitted: the request is its own step"),
    palette: PaletteSchema.optional(),
    options: ScoringOptionsSchema.optional(),
  })
  .strict()
  // Stateless in Swagger UI's "Try it out": without run_id the request would count toward the shared `default` run.
  .meta({ id: 'ScorePlanRequest', examples: [{ run_id: null, ...EXAMPLE_SCORE_REQUEST }] });

export type ScorePlanRequest = z.infer<typeof ScorePlanRequestSchema>;

/**
 * A request with its groups left out, as a body read in parts is checked on the main thread: "groups" is the
 * empty array in its place (its groups are checked where they are judged), so the keys keep the order
 * ScorePlanRequestSchema gives them.
 */
export const ScorePlanHeadSchema = ScorePlanRequestSchema.extend({ groups: z.array(z.never()).max(0) });

const PlanVerdictSchema = z
  .object({
    score: z.number().int().min(1).max(5).describe("The LLM judge's rating of the plan for this question and learner"),
    factor: z.number().min(0).max(1).describe('J = (score − 1) / 4: raw is the guarded raw rewards (gaming.guarded.raw) times J'),
    reason: z.string().describe("The judge's own sentence on what decided the rating"),
    model: z.string().describe('The model that judged (JUDGE_MODEL)'),
  })
  .meta({ id: 'PlanVerdict', description: 'With options.judge: the LLM judge’s verdict (docs/rewards.md §10.7)' });

const PlanScoreSchema = z
  .object({
    index: z.number().describe('Position of the completion in its group'),
    reward: z.number().describe('R_i = Σ_k w_k z_ik + R_hard_i'),
    advantage: z.number().describe('A_i = (R_i − μ_R) / (σ_R + ε) within the group'),
    score: z.number().describe('0 if gated, else Σ_k w_k R_ik ∈ [0, 1]'),
    z: AxisVectorSchema.describe('Group z-scores z_ik'),
    gaming_flags: GamingFlagsSchema,
    judge: PlanVerdictSchema.optional(),
    ...PlanEvaluationFields,
  })
  .meta({ id: 'PlanScore' });

const PlanRewardSchema = z
  .object({
    index: PlanScoreSchema.shape.index,
    reward: PlanScoreSchema.shape.reward,
    advantage: PlanScoreSchema.shape.advantage,
    score: PlanScoreSchema.shape.score,
    z: PlanScoreSchema.shape.z,
    gaming_flags: GamingFlagsSchema,
    aboutness: PlanEvaluationFields.aboutness,
    judge: PlanVerdictSchema.optional(),
    gate: PlanEvaluationFields.gate,
    raw: PlanEvaluationFields.raw,
  })
  .strict()
  .meta({ id: 'PlanReward', description: 'A plan with options.detail = "rewards"' });

const GroupScoreSchema = z
  .object({
    index: z.number(),
    id: z.string().nullable(),
    size: z.number(),
    gated: z.number(),
    signals: z.array(ProfileSignalSchema).describe('C(I_p): the profile signals R_pers looks for'),
    axis_mean: AxisVectorSchema,
    axis_std: AxisVectorSchema,
    reward_mean: z.number(),
    reward_std: z.number(),
    plans: z.array(PlanScoreSchema),
  })
  .meta({ id: 'GroupScore' });

export const ScorePlanResponseSchema = z
  .object({
    groups: z.array(GroupScoreSchema),
    weights: AxisVectorSchema.describe('w_k used to compose the soft axes'),
    options: ResolvedOptionsSchema,
    palette: PaletteInfoSchema,
    versions: VersionsSchema,
    run: RunStepInfoSchema.nullable().describe('Step accounting for this request; null when stateless'),
  })
  .meta({ id: 'ScorePlanResponse' });

/** The same response with options.detail = "rewards": each plan's composed numbers, gate and raw values only. */
export const ScorePlanRewardsResponseSchema = ScorePlanResponseSchema.extend({
  groups: z.array(GroupScoreSchema.extend({ plans: z.array(PlanRewardSchema) }).meta({ id: 'GroupRewards' })),
}).meta({ id: 'ScorePlanRewardsResponse' });

export type ScorePlanResponse = z.infer<typeof ScorePlanResponseSchema>;
