// What the graph needs of the plan /validate-plan returns (read and normalized by the service): agents,
// steps, execution order and loops, with ids as strings and a tool of "none" as no tool.

const text = (v) => (typeof v === 'string' ? v : '');

/** The drawable parts of the service's plan; undefined without one (it did not parse). */
export function readPlan(plan) {
  if (!plan) return undefined;
  return {
    agents: plan.agents.map((a) => ({ id: a.id, role: text(a.role) })),
    steps: plan.steps.map((s) => ({
      id: s.id,
      agent: text(s.agent),
      subtask: text(s.subtask),
      instruction: text(s.instruction),
      tool: typeof s.tool === 'string' && !['', 'none', 'null', 'n/a'].includes(s.tool.trim().toLowerCase()) ? s.tool : null,
      depends_on: s.depends_on ?? [],
      human_input: s.human_input === true,
    })),
    execution_order: plan.execution_order ?? [],
    loops: (plan.loops ?? []).map((l, i) => ({
      id: l.id ?? `#${i}`,
      nodes: l.nodes ?? [],
      max_iterations: l.max_iterations,
      exit_condition: text(l.exit_condition),
    })),
  };
}

/** A loop bound the service accepts: a positive integer. */
export const isBound = (n) => typeof n === 'number' && Number.isInteger(n) && n > 0;
