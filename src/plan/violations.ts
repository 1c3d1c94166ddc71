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

export interface Violation {
  code: ViolationCode;
  severity: 'error' | 'warning';
  path: string;
  message: string;
  cycle?: string[];
}

export function violation(code: ViolationCode, path: string, message: string, cycle?: string[]): Violation {
  const v: Violation = { code, severity: VIOLATION_CODES[code].severity, path, message };
  if (cycle) v.cycle = cycle;
  return v;
}

/** JSON-path rendering used for every path the service reports: $.steps[3].depends_on[0] */
export function jsonPath(segments: readonly PropertyKey[]): string {
  let out = '$';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (typeof s === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(s)) out += `.${s}`;
    else out += `[${JSON.stringify(String(s))}]`;
  }
  return out;
}
