import { z } from 'zod';

// The canonical plan, after the documented field variants have been normalized (see plan/normalize.ts).
// Unknown extra fields are dropped from the plan and reported as `unknown_field` warnings (plan/unknown-fields.ts):
// planners add commentary fields freely, but a misspelt field must not vanish silently.
const id = z.string().min(1);

const AgentSchema = z.object({
  id,
  role: z.string(),
  goal: z.string().optional(),
  backstory: z.string().optional(),
  tools: z.array(z.string()),
});

const SubtaskSchema = z.object({
  id,
  name: z.string(),
  objective: z.string().optional(),
  agent: z.string().optional(),
});

const StepSchema = z.object({
  id,
  subtask: z.string(),
  agent: z.string(),
  instruction: z.string(),
  expected_output: z.string().optional(),
  tool: z.string().nullable().optional(),
  depends_on: z.array(z.string()),
  human_input: z.boolean().optional(),
});

// max_iterations is deliberately loose here: a loop without a positive integer bound is an
// `unbounded_loop` violation with its own code, not a schema error.
const LoopSchema = z.object({
  id: z.string().optional(),
  nodes: z.array(z.string()),
  max_iterations: z.number().nullable().optional(),
  exit_condition: z.string().optional(),
});

export const PlanSchema = z.object({
  agents: z.array(AgentSchema),
  subtasks: z.array(SubtaskSchema),
  steps: z.array(StepSchema),
  execution_order: z.array(z.string()),
  loops: z.array(LoopSchema).optional(),
});

/** The fields the plan schema knows, per kind of object in a plan. */
export const PLAN_FIELDS = {
  plan: Object.keys(PlanSchema.shape),
  agent: Object.keys(AgentSchema.shape),
  subtask: Object.keys(SubtaskSchema.shape),
  step: Object.keys(StepSchema.shape),
  loop: Object.keys(LoopSchema.shape),
} as const;

export type Agent = z.infer<typeof AgentSchema>;
export type Subtask = z.infer<typeof SubtaskSchema>;
export type Step = z.infer<typeof StepSchema>;
export type Plan = z.infer<typeof PlanSchema>;
