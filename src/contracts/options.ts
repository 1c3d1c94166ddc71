import { z } from 'zod';
import { RewardProfileSchema } from './gaming.js';

/** Every compute route's `options.deadline_ms`. */
export const DeadlineMsSchema = z
  .number()
  .int()
  .min(1)
  .max(86_400_000)
  .optional()
  .describe(
    "This request's deadline in ms from its arrival: lowers the server's REQUEST_DEADLINE_MS, never raises it. Past it the work is stopped and the answer is 504",
  );

export const ScoringOptionsSchema = z
  .object({
    strict: z.boolean().optional().describe('Gate on every violation (MAP-PPL admission gate). Default false.'),
    lambda_hard: z.number().min(0).max(1e6).optional().describe('λ_hard, the hard-gate penalty. Default: the run’s, else LAMBDA_HARD'),
    reward_profile: RewardProfileSchema.optional().describe(
      "paper: PersonalPlan's soft rewards exactly as published. guarded: credited only for what the plan says about the question, capped where a gaming signal fires (docs/rewards.md §10, §11). Default: the run's, else REWARD_PROFILE (paper)",
    ),
    epsilon: z.number().gt(0).max(1).optional().describe('ε in the z-score and advantage denominators. Default 1e-6.'),
    tau: z.number().min(0).max(1).optional().describe('τ: an axis whose group std is below τ gets z = 0. Default 1e-6.'),
    ddof: z
      .union([z.literal(0), z.literal(1)])
      .optional()
      .describe('Delta degrees of freedom of the std. Default 0.'),
    judge: z
      .boolean()
      .optional()
      .describe(
        'true: each parsed plan is also rated 1–5 by the LLM judge (JUDGE_BASE_URL, an OpenAI-compatible API) and its guarded raw rewards are multiplied by J = (rating − 1) / 4 (docs/rewards.md §10.7); only with reward_profile guarded. Default false',
      ),
    deadline_ms: DeadlineMsSchema,
    detail: z
      .enum(['full', 'rewards'])
      .optional()
      .describe(
        'full (default): every plan with its components, violations, normalizations and topology. rewards: reward, advantage, score, z, gate and raw only — what a trainer needs, a fraction of the bytes',
      ),
  })
  .strict()
  .meta({ id: 'ScoringOptions' });

export const ResolvedOptionsSchema = z
  .object({
    strict: z.boolean(),
    lambda_hard: z.number(),
    reward_profile: RewardProfileSchema,
    epsilon: z.number(),
    tau: z.number(),
    ddof: z.union([z.literal(0), z.literal(1)]),
  })
  .meta({ id: 'ResolvedScoringOptions' });

export type ResolvedOptions = z.infer<typeof ResolvedOptionsSchema>;
