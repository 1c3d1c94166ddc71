import { z } from 'zod';
import { DeadlineMsSchema } from './options.js';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE } from './examples.js';
import { PaletteSchema, PHASES } from './palette.js';
import { ProfileSchema } from './profile.js';
import { PhaseSummarySchema, SignalHitSchema, SignalRefSchema, TopologySchema, ViolationSchema } from './results.js';
import { CompletionSchema } from './score-plan.js';

const EVALUATE_PLAN_LIMITS = { maxPlans: 32 } as const;

/**
 * Graph edit distance search work a request may spend, over all its pairs (src/plan-metrics/ged.ts counts
 * it): the default, and the most `options.ged_budget` may ask for.
 */
export const GED_BUDGET = { default: 1_000_000_000, max: 10_000_000_000 } as const;

export const EvaluatePlanRequestSchema = z
  .object({
    plans: z
      .array(z.object({ plan: CompletionSchema, profile: ProfileSchema.optional() }).strict())
      .min(1)
      .max(EVALUATE_PLAN_LIMITS.maxPlans)
      .describe('One plan, or several plans for the same query under different profiles (for the cross-plan scores)'),
    gold: CompletionSchema.optional().describe('A gold plan: TS (structural similarity) is computed against it'),
    palette: PaletteSchema.optional(),
    options: z
      .object({
        delta_tbq: z.number().min(-1).max(1).optional().describe('TBQ cosine threshold δ (default 0.10)'),
        kappa: z.number().positive().optional().describe('TS = exp(−GED/κ), κ default 2.5'),
        ged_budget: z
          .number()
          .int()
          .min(0)
          .max(GED_BUDGET.max)
          .optional()
          .describe(
            `Search work shared by every graph edit distance of the request (default ${GED_BUDGET.default.toLocaleString('en-US')}), within the request deadline: ` +
              'a count, not a clock, so the same request always gets the same answer; a distance still searching when it is spent is reported with exact: false and its bounds',
          ),
        deadline_ms: DeadlineMsSchema,
      })
      .strict()
      .optional(),
  })
  .strict()
  .meta({ id: 'EvaluatePlanRequest', examples: [{ plans: [{ plan: EXAMPLE_PLAN, profile: EXAMPLE_PROFILE }], gold: EXAMPLE_PLAN }] });

/** The three cosine checks of a tool binding (PersonalPlan A.4, TBQ). */
export const BINDING_CHECKS = ['role_subtask', 'tool_role', 'tool_instruction'] as const;
type BindingCheck = (typeof BINDING_CHECKS)[number];
const perCheck = <T extends z.ZodType>(value: T) => z.object(Object.fromEntries(BINDING_CHECKS.map((c) => [c, value])) as Record<BindingCheck, T>);

const GedFieldsSchema = z.object({
  ged: z.number().describe('The cheapest edit path found: the graph edit distance when exact, else an upper bound'),
  exact: z.boolean().describe("False when the request's GED budget (options.ged_budget) ran out before the search ended"),
  ged_bounds: z.object({ lower: z.number(), upper: z.number() }).describe('What the search proved: lower ≤ GED ≤ upper (upper = ged); equal when exact'),
});
export type GedFields = z.infer<typeof GedFieldsSchema>;

const StructuralSimilaritySchema = z.object({
  value: z.number().describe('TS from ged: a lower bound when not exact'),
  ...GedFieldsSchema.shape,
  kappa: z.number(),
  nodes: z.object({ plan: z.number(), gold: z.number() }),
  edges: z.object({ plan: z.number(), gold: z.number() }),
});
export type StructuralSimilarity = z.infer<typeof StructuralSimilaritySchema>;

const ToolBindingQualitySchema = z.object({
  value: z.number().describe('TBQ = quality × coverage'),
  quality: z.number().describe('Mean share of passing checks over the bindings (0 with no binding)'),
  coverage: z.number().describe('Share of steps that call a tool'),
  steps: z.number(),
  bound_steps: z.number(),
  delta: z.number(),
  bindings: z.array(
    z.object({
      step: z.string(),
      agent: z.string(),
      tool: z.string(),
      cosines: perCheck(z.number().nullable()).describe('null when a side is missing (unknown agent or subtask): the check then fails'),
      pass: perCheck(z.boolean()),
      share: z.number().describe('Share of the three checks that pass'),
    }),
  ),
});
export type ToolBindingQuality = z.infer<typeof ToolBindingQualitySchema>;

const PhaseCoverageSchema = z.object({
  covered: z.array(z.enum(PHASES)).describe('Scored Merrill phases detected (activation, demonstration, application, integration), in that order'),
  value: z.number().describe('covered / 4: the same figure as R_ped'),
  phases: z
    .object(Object.fromEntries(PHASES.map((p) => [p, PhaseSummarySchema])) as Record<(typeof PHASES)[number], typeof PhaseSummarySchema>)
    .describe('Every phase, the optional feedback and consolidate included'),
  merrill_order: z.boolean().nullable().describe("Whether the covered scored phases first appear in Merrill's order; null with fewer than two"),
});
export type PhaseCoverage = z.infer<typeof PhaseCoverageSchema>;

const SkillHitsSchema = z.object({
  value: z.number(),
  basis: z
    .enum(['tags_skills', 'all_signals'])
    .describe("tags_skills: the profile's tags and skills; all_signals: a profile without any (free text) uses every signal"),
  hits: z.array(SignalHitSchema),
  misses: z.array(SignalRefSchema),
});
export type SkillHits = z.infer<typeof SkillHitsSchema>;

const PlanMetricsSchema = z.object({
  topology: TopologySchema,
  structural_similarity: StructuralSimilaritySchema.nullable().describe('TS = exp(−GED/κ) against the gold plan; null without one'),
  tool_binding: ToolBindingQualitySchema,
  phases: PhaseCoverageSchema,
  skill_hits: SkillHitsSchema.nullable().describe('Null without a profile, or with a profile that yields no signal'),
});
export type PlanMetrics = z.infer<typeof PlanMetricsSchema>;

const CrossPlanFields = {
  profile_variance: z.number().describe('Mean pairwise 1 − TS: 0 when every profile got the same structure, towards 1 as they diverge'),
  mean_ged: z.number(),
  role_jaccard: z.number().describe('Mean pairwise Jaccard of the sets of agent roles'),
  edge_jaccard: z.number().describe('Mean pairwise Jaccard of the sets of role → role dependency edges'),
  exact: z.boolean().describe('False when any pairwise GED is not exact (then profile_variance is an upper bound)'),
  pairs: z.array(
    z.object({
      a: z.number(),
      b: z.number(),
      ...GedFieldsSchema.shape,
      ts: z.number().describe('TS from ged: a lower bound when not exact'),
      role_jaccard: z.number(),
      edge_jaccard: z.number(),
    }),
  ),
};
const CrossPlanMetricsSchema = z.object(CrossPlanFields);
export type CrossPlanMetrics = z.infer<typeof CrossPlanMetricsSchema>;

export const EvaluatePlanResponseSchema = z
  .object({
    plans: z.array(
      z.object({
        index: z.number().int(),
        parsed: z.boolean(),
        violations: z.array(ViolationSchema).optional().describe('Why the plan could not be read (then no metrics)'),
        metrics: PlanMetricsSchema.optional(),
      }),
    ),
    gold: z.object({ parsed: z.boolean(), violations: z.array(ViolationSchema).optional() }).optional(),
    cross: z
      .object({ plans: z.array(z.number().int()).describe('Indices of the plans compared (the parsed ones)'), ...CrossPlanFields })
      .nullable()
      .describe('Across the plans (same query, different profiles); null with fewer than two parsed plans'),
    options: z.object({ kappa: z.number(), delta_tbq: z.number(), ged_budget: z.number() }),
    latency_ms: z.number(),
  })
  .meta({ id: 'EvaluatePlanResponse' });

export type EvaluatePlanRequest = z.infer<typeof EvaluatePlanRequestSchema>;
