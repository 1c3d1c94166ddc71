import { z } from 'zod';

// Signals of the known ways to game the paper's soft rewards (docs/rewards.md §10). Raised on every parsed
// plan in both reward profiles; under `guarded` they also cap the plan's credit.
const GAMING_SIGNALS = {
  bare_keywords: 'Profile signals credited only from keyword lists or text that is not a sentence',
  keyword_stuffing: 'Profile-signal or phase-cue words far denser than real plans show',
  duplicate_steps: 'Steps that repeat another step word for word or nearly',
  off_topic: 'Steps that name nothing of programming or of the query beyond profile keywords and cue words',
  cue_only_phase: 'A Merrill phase credited by its cue words alone, without a step that does what the phase means',
  degenerate_structure: 'A structure the structural reward pays for that is no multi-agent plan: one agent runs every step, or no step depends on another',
} as const;

export type GamingSignalCode = keyof typeof GAMING_SIGNALS;
export const GAMING_SIGNAL_CODES = Object.keys(GAMING_SIGNALS) as [GamingSignalCode, ...GamingSignalCode[]];

export const REWARD_PROFILES = ['paper', 'guarded'] as const;
export type RewardProfile = (typeof REWARD_PROFILES)[number];

export const RewardProfileSchema = z
  .enum(REWARD_PROFILES)
  .describe(
    "paper: PersonalPlan's soft rewards exactly as published. guarded: the same rewards with credit capped where a gaming signal fires (docs/rewards.md §10)",
  );

/** The six codes with what each means, for the API's documentation. */
export const GAMING_SIGNAL_MEANINGS = Object.entries(GAMING_SIGNALS)
  .map(([code, meaning]) => `${code}: ${meaning}`)
  .join('; ');

const GamingSignalSchema = z
  .object({
    code: z.enum(GAMING_SIGNAL_CODES).describe(GAMING_SIGNAL_MEANINGS),
    message: z.string().describe('What was found, in words'),
    steps: z.array(z.string()).describe('The steps that raised it (empty for a plan-wide signal)'),
    value: z.number().describe('The measured figure the threshold applies to'),
    threshold: z.number().describe('The figure past which the signal fires'),
  })
  .meta({ id: 'GamingSignal' });
export type GamingSignal = z.infer<typeof GamingSignalSchema>;

const GuardedCreditSchema = z
  .object({
    raw: z
      .object({ struct: z.number(), pers: z.number(), ped: z.number() })
      .describe('The guarded soft rewards R^g_k = m · R̃_k: the raw values under reward_profile guarded'),
    multiplier: z.number().describe('m = (1 − π)^(signals fired)'),
  })
  .meta({ id: 'GuardedCredit' });
export type GuardedCredit = z.infer<typeof GuardedCreditSchema>;

export const GamingSchema = z
  .object({
    flagged: z.boolean().describe('Whether any signal fired'),
    signals: z.array(GamingSignalSchema),
    guarded: GuardedCreditSchema.describe('What the guarded profile credits, whichever profile scored the plan'),
    version: z.string(),
  })
  .meta({ id: 'Gaming', description: 'Gaming signals of one plan, with their evidence; raised in both reward profiles' });
export type Gaming = z.infer<typeof GamingSchema>;
