import { z } from 'zod';

// Signals of the known ways to game the paper's soft rewards (docs/rewards.md §10). Raised on every parsed
// plan in both reward profiles; under `guarded` they also cap the plan's credit.
const GAMING_SIGNALS = {
  bare_keywords: 'Profile signals credited only from keyword lists or text that is not a sentence',
  keyword_stuffing: 'Profile-signal words far denser than honest plans show',
  duplicate_steps: 'Steps that repeat another step word for word or nearly',
  off_topic: 'Steps no more about this question than about any other (docs/rewards.md §11d)',
  cue_only_phase: 'A Merrill phase credited by its cue words alone: every step showing it is about something else',
  degenerate_structure: 'A structure the structural reward pays for that is no plan: no step depends on another',
} as const;

export type GamingSignalCode = keyof typeof GAMING_SIGNALS;
export const GAMING_SIGNAL_CODES = Object.keys(GAMING_SIGNALS) as [GamingSignalCode, ...GamingSignalCode[]];

export const REWARD_PROFILES = ['paper', 'guarded'] as const;
export type RewardProfile = (typeof REWARD_PROFILES)[number];

export const RewardProfileSchema = z
  .enum(REWARD_PROFILES)
  .describe(
    "paper: PersonalPlan's soft rewards exactly as published. guarded: the same rewards credited only for what the plan says about the question, and capped where a gaming signal fires (docs/rewards.md §10, §11)",
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

const StepMeaningSchema = z
  .object({
    step: z.string(),
    specificity: z
      .number()
      .describe(
        "cos(step, query) − cos(average plan, query): above 0, the step is nearer the question than a plan about nothing in particular is (a calculation, fewer than 3 content words and 2 new numbers or more, takes its plan's)",
      ),
    about: z
      .number()
      .describe('How far the step is about this question, 0–1: what its phases, the profile signals it names and its place in the structure earn'),
    invented: z.array(z.string()).describe('Words in no dictionary and not given by the client: they earn nothing'),
  })
  .meta({ id: 'StepMeaning' });

const GuardedCreditSchema = z
  .object({
    raw: z
      .object({ struct: z.number(), pers: z.number(), ped: z.number() })
      .describe('The guarded soft rewards R^g_k = m · R̃_k: the raw values under reward_profile guarded'),
    multiplier: z.number().describe('m = G · (1 − π)^(signals fired)'),
    plan_specificity: z.number().describe('The same for all the steps read as one text'),
    plan_information: z
      .number()
      .describe("What the plan says beyond the query and the profile: the summed weights of its distinct content words that are neither's"),
    plan_coverage: z.number().nullable().describe("The weighted share of the group's reference content the plan says; null without a reference"),
    about: z
      .number()
      .describe('G: how far the plan as a whole is about this question and says something of its own about it (and, with a reference, covers it), 0–1'),
    steps: z
      .array(StepMeaningSchema)
      .describe('What each step says about the question, in plan order: the measures the guarded credit is gated by (docs/rewards.md §11)'),
  })
  .meta({ id: 'GuardedCredit' });
export type GuardedCredit = z.infer<typeof GuardedCreditSchema>;

export const GamingSchema = z
  .object({
    flagged: z.boolean().describe('Whether any signal fired'),
    signals: z.array(GamingSignalSchema),
    guarded: GuardedCreditSchema.nullable().describe(
      'What the guarded profile credits, and what each step says about the question; null under reward_profile paper, which does not take the meaning reading it needs',
    ),
    version: z.string(),
  })
  .meta({ id: 'Gaming', description: 'Gaming signals of one plan, with their evidence; raised in both reward profiles' });
export type Gaming = z.infer<typeof GamingSchema>;
