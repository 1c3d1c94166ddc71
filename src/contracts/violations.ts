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
} as const;

export type ViolationCode = keyof typeof VIOLATION_CODES;
export type GateClass = 'schema' | 'cycle' | 'tool';
