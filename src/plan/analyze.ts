import type { Agent, Plan, Step, Subtask } from '../contracts/plan.js';
import { buildDependencyGraph, edgeKey, topology, type DependencyGraph, type Topology } from './graph.js';
import type { ResolvedPalette } from './palette.js';
import { violation, type Violation } from './violations.js';

/** Everything the static checks and the rewards read from one parsed plan, computed once. */
export interface PlanAnalysis {
  plan: Plan;
  agents: ReadonlyMap<string, Agent>;
  subtasks: ReadonlyMap<string, Subtask>;
  steps: ReadonlyMap<string, Step>;
  dependencies: DependencyGraph;
  topology: Topology;
  violations: Violation[];
}

function indexById<T extends { id: string }>(items: readonly T[], kind: string, violations: Violation[]): Map<string, T> {
  const map = new Map<string, T>();
  items.forEach((item, i) => {
    if (map.has(item.id)) violations.push(violation('duplicate_id', `$.${kind}[${i}].id`, `${kind} id "${item.id}" is declared twice`));
    else map.set(item.id, item);
  });
  return map;
}

function isBound(n: number | null | undefined): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n > 0;
}

export function analyzePlan(plan: Plan, palette: ResolvedPalette): PlanAnalysis {
  const violations: Violation[] = [];
  const agents = indexById(plan.agents, 'agents', violations);
  const subtasks = indexById(plan.subtasks, 'subtasks', violations);
  const steps = indexById(plan.steps, 'steps', violations);

  plan.agents.forEach((agent, i) => {
    agent.tools.forEach((tool, j) => {
      if (!palette.tools.has(tool)) {
        violations.push(violation('agent_tool_not_in_palette', `$.agents[${i}].tools[${j}]`, `agent "${agent.id}" declares "${tool}", which is not in the palette`));
      }
    });
  });
  plan.subtasks.forEach((subtask, i) => {
    if (subtask.agent !== undefined && !agents.has(subtask.agent)) {
      violations.push(violation('unknown_agent', `$.subtasks[${i}].agent`, `subtask "${subtask.id}" names unknown agent "${subtask.agent}"`));
    }
  });
  plan.steps.forEach((step, i) => {
    const agent = agents.get(step.agent);
    if (!agent) violations.push(violation('unknown_agent', `$.steps[${i}].agent`, `step "${step.id}" names unknown agent "${step.agent}"`));
    if (!subtasks.has(step.subtask)) {
      violations.push(violation('unknown_subtask', `$.steps[${i}].subtask`, `step "${step.id}" names unknown subtask "${step.subtask}"`));
    }
    step.depends_on.forEach((dep, j) => {
      if (!steps.has(dep)) violations.push(violation('unknown_dependency', `$.steps[${i}].depends_on[${j}]`, `step "${step.id}" depends on unknown step "${dep}"`));
    });
    if (step.tool) {
      if (!palette.tools.has(step.tool)) {
        violations.push(violation('tool_not_in_palette', `$.steps[${i}].tool`, `step "${step.id}" calls "${step.tool}", which is not in the palette`));
      } else if (agent && !agent.tools.includes(step.tool)) {
        violations.push(violation('tool_not_in_agent_tools', `$.steps[${i}].tool`, `step "${step.id}" calls "${step.tool}", which agent "${agent.id}" does not have`));
      }
    }
  });

  const boundedLoops: Set<string>[] = [];
  (plan.loops ?? []).forEach((loop, i) => {
    const name = loop.id ?? `#${i}`;
    loop.nodes.forEach((node, j) => {
      if (!steps.has(node)) violations.push(violation('loop_unknown_node', `$.loops[${i}].nodes[${j}]`, `loop ${name} names unknown step "${node}"`));
    });
    if (isBound(loop.max_iterations)) boundedLoops.push(new Set(loop.nodes));
    else violations.push(violation('unbounded_loop', `$.loops[${i}].max_iterations`, `loop ${name} has no positive integer max_iterations`));
  });

  const dependencies = buildDependencyGraph(plan, new Set(steps.keys()), boundedLoops);
  const stepIndex = new Map(plan.steps.map((s, i) => [s, i]));
  for (const cycle of dependencies.cycles) {
    const i = stepIndex.get(steps.get(cycle[0]!)!)!;
    violations.push(violation('cycle', `$.steps[${i}].depends_on`, `dependency cycle ${cycle.join(' → ')}`, cycle));
  }

  const position = new Map<string, number>();
  plan.execution_order.forEach((id, k) => {
    if (!steps.has(id)) violations.push(violation('unknown_order_step', `$.execution_order[${k}]`, `execution_order names unknown step "${id}"`));
    else if (!position.has(id)) position.set(id, k);
  });
  plan.steps.forEach((step, i) => {
    if (steps.get(step.id) === step && !position.has(step.id)) {
      violations.push(violation('missing_from_order', `$.steps[${i}].id`, `step "${step.id}" is missing from execution_order`));
    }
  });
  dependencies.graph.forEachEdge((_e, _a, before, after) => {
    if (dependencies.loopEdges.has(edgeKey(before, after))) return;
    const pb = position.get(before);
    const pa = position.get(after);
    if (pb !== undefined && pa !== undefined && pb > pa) {
      violations.push(violation('order_before_prerequisite', `$.execution_order[${pa}]`, `"${after}" runs before its prerequisite "${before}"`));
    }
  });

  const agentOf = new Map([...steps.values()].map((s) => [s.id, s.agent]));
  return { plan, agents, subtasks, steps, dependencies, topology: topology(dependencies, agentOf), violations };
}
