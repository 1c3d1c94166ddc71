// Static-check findings. `gate` names the hard-gate class a code belongs to (PersonalPlan §3.3, R_hard):
// schema-level failures, dependency cycles and invalid tool calls always gate; the rest gate only under
// `strict: true` (the MAP-PPL admission gate).
export const VIOLATION_CODES = {
  parse_error: { severity: 'error', gate: 'schema' },
  schema_invalid: { severity: 'error', gate: 'schema' },
  plan_too_large: { severity: 'error', gate: 'schema' },
  duplicate_id: { severity: 'error', gate: 'schema' },
  unknown_agent: { severity: 'error', gate: 'schema' },
  cycle: { severity: 'error', gate: 'cycle' },
  tool_not_in_palette: { severity: 'error', gate: 'tool' },
  tool_not_in_agent_tools: { severity: 'error', gate: 'tool' },
  unknown_subtask: { severity: 'warning', gate: null },
  unknown_dependency: { severity: 'warning', gate: null },
  unknown_order_step: { severity: 'warning', gate: null },
  missing_from_order: { severity: 'warning', gate: null },
  order_before_prerequisite: { severity: 'warning', gate: null },
  loop_unknown_node: { severity: 'warning', gate: null },
  unbounded_loop: { severity: 'warning', gate: null },
  agent_tool_not_in_palette: { severity: 'warning', gate: null },
  unknown_field: { severity: 'warning', gate: null },
} as const satisfies Record<string, { severity: Severity; gate: GateClass | null }>;

export type ViolationCode = keyof typeof VIOLATION_CODES;
export const GATE_CLASSES = ['schema', 'cycle', 'tool'] as const;
export type GateClass = (typeof GATE_CLASSES)[number];
export const SEVERITIES = ['error', 'warning'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** The documented rewrites of planner field variants (plan/normalize.ts), each reported with its path. */
export const NORMALIZATION_RULES = [
  'unwrap_plan',
  'field_alias',
  'id_number_to_string',
  'scalar_to_list',
  'null_to_empty_list',
  'missing_list_to_empty',
  'empty_tool_to_null',
] as const;
export type NormalizationRule = (typeof NORMALIZATION_RULES)[number];
