import { z } from 'zod';
import { PHASES } from './palette.js';
import { SIGNAL_SOURCES } from './profile.js';
import { GAMING_SIGNAL_CODES, GAMING_SIGNAL_MEANINGS, GamingSchema } from './gaming.js';
import { GATE_CLASSES, NORMALIZATION_RULES, SEVERITIES, VIOLATION_CODES } from './violations.js';

// Response-side contracts shared by /score-plan and /validate-plan.
const codes = Object.keys(VIOLATION_CODES) as [keyof typeof VIOLATION_CODES, ...(keyof typeof VIOLATION_CODES)[]];

export const AxisVectorSchema = z
  .object({ struct: z.number(), pers: z.number(), ped: z.number() })
  .meta({ id: 'AxisVector', description: 'One number per soft axis: structural, personalization, pedagogy' });

export const ViolationSchema = z
  .object({
    code: z.enum(codes),
    severity: z.enum(SEVERITIES),
    path: z.string().describe('JSON path into the normalized plan, e.g. $.steps[3].tool'),
    message: z.string(),
    cycle: z.array(z.string()).optional().describe('For cycle: the steps of one cycle, first repeated at the end'),
  })
  .meta({ id: 'Violation' });
export type Violation = z.infer<typeof ViolationSchema>;

const NormalizationSchema = z
  .object({
    path: z.string(),
    rule: z.enum(NORMALIZATION_RULES),
    detail: z.string(),
  })
  .meta({ id: 'Normalization' });
export type Normalization = z.infer<typeof NormalizationSchema>;

const GateSchema = z
  .object({
    failed: z.boolean(),
    reasons: z.array(z.enum(codes)).describe('Violation codes that closed the gate, in first-seen order'),
    classes: z.array(z.enum(GATE_CLASSES)),
    penalty: z.number().describe('R_hard: −λ_hard when failed, else 0'),
  })
  .meta({ id: 'Gate' });
export type Gate = z.infer<typeof GateSchema>;

const StructuralSchema = z
  .object({
    value: z.number(),
    dag: z.number(),
    dc: z.number(),
    atr: z.number(),
    step_tool_validity: z.number(),
    agent_coverage: z.number(),
    unused_agents: z.array(z.string()),
  })
  .meta({ id: 'StructuralReward' });
export type StructuralReward = z.infer<typeof StructuralSchema>;

const SignalRef = { id: z.string(), label: z.string(), sources: z.array(z.enum(SIGNAL_SOURCES)) };
export const SignalRefSchema = z.object(SignalRef);
export const SignalHitSchema = SignalRefSchema.extend({ matched: z.array(z.string()) });
export type SignalHit = z.infer<typeof SignalHitSchema>;

const PersonalizationSchema = z
  .object({
    value: z.number(),
    hits: z.array(SignalHitSchema),
    misses: z.array(SignalRefSchema),
    lexicon: z.string(),
  })
  .meta({ id: 'PersonalizationReward' });
export type PersonalizationReward = z.infer<typeof PersonalizationSchema>;

export const PhaseSummarySchema = z.object({
  detected: z.boolean(),
  steps: z.array(z.string()),
  positions: z.array(z.number()).describe('Normalized positions in execution_order, index / (length − 1)'),
  first_position: z.number().nullable(),
});
export type PhaseSummary = z.infer<typeof PhaseSummarySchema>;

const PedagogySchema = z
  .object({
    value: z.number(),
    phases: z.object(Object.fromEntries(PHASES.map((p) => [p, PhaseSummarySchema])) as Record<(typeof PHASES)[number], typeof PhaseSummarySchema>),
    steps: z.array(
      z.object({
        step: z.string(),
        phases: z.array(z.enum(PHASES)),
        activation_without_human_input: z.literal(true).optional().describe('An activation cue on a step without human_input: true, so it does not count'),
      }),
    ),
    version: z.string(),
  })
  .meta({ id: 'PedagogyReward' });
export type PedagogyReward = z.infer<typeof PedagogySchema>;

const ComponentsSchema = z.object({ struct: StructuralSchema, pers: PersonalizationSchema.nullable(), ped: PedagogySchema }).meta({ id: 'Components' });

export const TopologySchema = z
  .object({
    steps: z.number(),
    edges: z.number(),
    edge_density: z.number().describe('edges / (steps·(steps−1)/2)'),
    max_fan_in: z.number(),
    max_fan_out: z.number(),
    layer_width: z.number().nullable().describe('Widest topological generation; null when the graph has a cycle'),
    critical_path: z.number().nullable().describe('Longest dependency chain, in steps'),
    critical_path_ratio: z.number().nullable(),
    inter_agent_edge_ratio: z.number(),
  })
  .meta({ id: 'Topology' });
/** PersonalPlan Table 4 topology metrics. */
export type Topology = z.infer<typeof TopologySchema>;

export const ProfileSignalSchema = z
  .object({ ...SignalRef, phrases: z.array(z.string()).describe('Normalized phrases whose presence in the plan text covers this signal') })
  .meta({ id: 'ProfileSignal' });
export type ProfileSignal = z.infer<typeof ProfileSignalSchema>;

export const VersionsSchema = z
  .object({ service: z.string(), lexicon: z.string(), phases: z.string(), gaming: z.string(), meaning: z.string() })
  .meta({ id: 'Versions' });

export const GamingFlagsSchema = z
  .array(z.enum(GAMING_SIGNAL_CODES))
  .describe(`The gaming signals the plan raised, evidence in \`gaming\` (${GAMING_SIGNAL_MEANINGS})`);

const AboutnessSchema = z
  .number()
  .nullable()
  .describe(
    'G, how far the plan as a whole is about this question and says something of its own about it, 0–1: `gaming.guarded.about`, null when the plan has none (it did not parse, or `gaming.guarded` is null)',
  );

export const PaletteInfoSchema = z.object({ source: z.enum(['default', 'request']), tools: z.array(z.string()) }).meta({ id: 'PaletteInfo' });

/** What one plan's evaluation reports in both /score-plan and /validate-plan. */
export const PlanEvaluationFields = {
  aboutness: AboutnessSchema,
  gate: GateSchema,
  raw: AxisVectorSchema.describe('Raw soft rewards R_ik (0 on every axis when the plan did not parse)'),
  components: ComponentsSchema.nullable().describe("The paper's reward components; null when the plan did not parse into the schema"),
  gaming: GamingSchema.nullable().describe('Gaming signals with their evidence, and what the guarded profile credits; null when the plan did not parse'),
  violations: z.array(ViolationSchema),
  normalizations: z.array(NormalizationSchema),
  topology: TopologySchema.nullable(),
};
