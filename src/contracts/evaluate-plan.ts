import { z } from 'zod';
import { DeadlineMsSchema } from './options.js';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE } from './examples.js';
import { PaletteSchema, PHASES } from './palette.js';
import { ProfileSchema } from './profile.js';
import { PhaseSummarySchema, TopologySchema, ViolationSchema } from './results.js';
import { CompletionSchema } from './score-plan.js';

const EVALUATE_PLAN_LIMITS = { maxPlans: 32, maxGedTimeoutMs: 10_000 } as const;

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
        ged_timeout_ms: z
          .number()
          .int()
          .min(1)
          .max(EVALUATE_PLAN_LIMITS.maxGedTimeoutMs)
          .optional()
          .describe('Bound per graph edit distance (default 2000), within the request deadline'),
        deadline_ms: DeadlineMsSchema,
      })
      .strict()
      .optional(),
  })
  .strict()
  .meta({ id: 'EvaluatePlanRequest', examples: [{ plans: [{ plan: EXAMPLE_PLAN, profile: EXAMPLE_PROFILE }], gold: EXAMPLE_PLAN }] });

const Hit = z.object({ id: z.string(), label: z.string(), sources: z.array(z.string()), matched: z.array(z.string()).optional() });
/** The three cosine checks of a tool binding (PersonalPlan A.4, TBQ). */
export const BINDING_CHECKS = ['role_subtask', 'tool_role', 'tool_instruction'] as const;
export type BindingCheck = (typeof BINDING_CHECKS)[number];
const perCheck = <T extends z.ZodType>(value: T) => z.object(Object.fromEntries(BINDING_CHECKS.map((c) => [c, value])) as Record<BindingCheck, T>);

const PlanMetricsSchema = z.object({
  topology: TopologySchema,
  structural_similarity: z
    .object({
      value: z.number(),
      ged: z.number(),
      exact: z.boolean(),
      kappa: z.number(),
      nodes: z.object({ plan: z.number(), gold: z.number() }),
      edges: z.object({ plan: z.number(), gold: z.number() }),
    })
    .nullable()
    .describe('TS = exp(−GED/κ) against the gold plan; exact false when the time bound cut the search (GED is then an upper bound)'),
  tool_binding: z.object({
    value: z.number().describe('TBQ = quality × coverage'),
    quality: z.number(),
    coverage: z.number(),
    steps: z.number(),
    bound_steps: z.number(),
    delta: z.number(),
    bindings: z.array(
      z.object({
        step: z.string(),
        agent: z.string(),
        tool: z.string(),
        cosines: perCheck(z.number().nullable()),
        pass: perCheck(z.boolean()),
        share: z.number(),
      }),
    ),
  }),
  phases: z.object({
    covered: z.array(z.enum(PHASES)),
    value: z.number(),
    phases: z.object(Object.fromEntries(PHASES.map((p) => [p, PhaseSummarySchema])) as Record<(typeof PHASES)[number], typeof PhaseSummarySchema>),
    merrill_order: z.boolean().nullable(),
  }),
  skill_hits: z.object({ value: z.number(), basis: z.enum(['tags_skills', 'all_signals']), hits: z.array(Hit), misses: z.array(Hit) }).nullable(),
});

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
      .object({
        plans: z.array(z.number().int()).describe('Indices of the plans compared (the parsed ones)'),
        profile_variance: z.number().describe('Mean pairwise 1 − TS'),
        mean_ged: z.number(),
        role_jaccard: z.number(),
        edge_jaccard: z.number(),
        exact: z.boolean(),
        pairs: z.array(
          z.object({ a: z.number(), b: z.number(), ged: z.number(), exact: z.boolean(), ts: z.number(), role_jaccard: z.number(), edge_jaccard: z.number() }),
        ),
      })
      .nullable(),
    options: z.object({ kappa: z.number(), delta_tbq: z.number(), ged_timeout_ms: z.number() }),
    latency_ms: z.number(),
  })
  .meta({ id: 'EvaluatePlanResponse' });

export type EvaluatePlanRequest = z.infer<typeof EvaluatePlanRequestSchema>;
