import type { Topology, Violation } from '../contracts/results.js';
import type { Agent, Plan, Step, Subtask } from '../contracts/plan.js';
import { dependencyFacts, type DependencyFacts } from './graph.js';
import type { ResolvedPalette } from './palette.js';
import { violation } from './violations.js';

/** Everything the static checks and the rewards read from one parsed plan, computed once. */
export interface PlanAnalysis {
  plan: Plan;
  agents: ReadonlyMap<string, Agent>;
  steps: ReadonlyMap<string, Step>;
  /** Position in execution_order; steps missing from it follow, in declaration order. */
  rank: ReadonlyMap<string, number>;
  dependencies: DependencyFacts;
  topology: Topology;
  violations: Violation[];
}

function indexById<T extends { id: string }>(items: readonly T[], kind: string, violations: Violation[]): Map<string, T> {
  const map = new Map<string, T>();
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (map.has(item.id)) violations.push(violation('duplicate_id', `$.${kind}[${i}].id`, `${kind} id "${item.id}" is declared twice`));
    else map.set(item.id, item);
  }
  return map;
}

function isBound(n: number | null | undefined): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n > 0;
}

export function analyzePlan(plan: Plan, palette: ResolvedPalette): PlanAnalysis {
  const violations: Violation[] = [];
  const agents = indexById(plan.agents, 'agents', violations);
  const subtasks: ReadonlyMap<string, Subtask> = indexById(plan.subtasks, 'subtasks', violations);
  const steps = indexById(plan.steps, 'steps', violations);

  for (let i = 0; i < plan.agents.length; i++) {
    const agent = plan.agents[i]!;
    for (let j = 0; j < agent.tools.length; j++) {
      const tool = agent.tools[j]!;
      if (!palette.tools.has(tool)) {
        violations.push(
          violation('agent_tool_not_in_palette', `$.agents[${i}].tools[${j}]`, `agent "${agent.id}" declares "${tool}", which is not in the palette`),
        );
      }
    }
  }
  for (let i = 0; i < plan.subtasks.length; i++) {
    const subtask = plan.subtasks[i]!;
    if (subtask.agent !== undefined && !agents.has(subtask.agent)) {
      violations.push(violation('unknown_agent', `$.subtasks[${i}].agent`, `subtask "${subtask.id}" names unknown agent "${subtask.agent}"`));
    }
  }
  for (let i = 0; i < plan.steps.length; i++) {
    const step = plan.steps[i]!;
    const agent = agents.get(step.agent);
    if (!agent) violations.push(violation('unknown_agent', `$.steps[${i}].agent`, `step "${step.id}" names unknown agent "${step.agent}"`));
    if (!subtasks.has(step.subtask)) {
      violations.push(violation('unknown_subtask', `$.steps[${i}].subtask`, `step "${step.id}" names unknown subtask "${step.subtask}"`));
    }
    for (let j = 0; j < step.depends_on.length; j++) {
      const dep = step.depends_on[j]!;
      if (!steps.has(dep))
        violations.push(violation('unknown_dependency', `$.steps[${i}].depends_on[${j}]`, `step "${step.id}" depends on unknown step "${dep}"`));
    }
    if (step.tool) {
      if (!palette.tools.has(step.tool)) {
        violations.push(violation('tool_not_in_palette', `$.steps[${i}].tool`, `step "${step.id}" calls "${step.tool}", which is not in the palette`));
      } else if (agent && !agent.tools.includes(step.tool)) {
        violations.push(
          violation('tool_not_in_agent_tools', `$.steps[${i}].tool`, `step "${step.id}" calls "${step.tool}", which agent "${agent.id}" does not have`),
        );
      }
    }
  }

  const boundedLoops: Set<string>[] = [];
  const loops = plan.loops ?? [];
  for (let i = 0; i < loops.length; i++) {
    const loop = loops[i]!;
    const name = loop.id ?? `#${i}`;
    for (let j = 0; j < loop.nodes.length; j++) {
      const node = loop.nodes[j]!;
      if (!steps.has(node)) violations.push(violation('loop_unknown_node', `$.loops[${i}].nodes[${j}]`, `loop ${name} names unknown step "${node}"`));
    }
    if (isBound(loop.max_iterations)) boundedLoops.push(new Set(loop.nodes));
    else violations.push(violation('unbounded_loop', `$.loops[${i}].max_iterations`, `loop ${name} has no positive integer max_iterations`));
  }

  // rank: a step's first position in execution_order; steps missing from it rank after all that are in it.
  const rank = new Map<string, number>();
  const ordered = plan.execution_order.length;
  for (let k = 0; k < ordered; k++) {
    const id = plan.execution_order[k]!;
    if (!steps.has(id)) violations.push(violation('unknown_order_step', `$.execution_order[${k}]`, `execution_order names unknown step "${id}"`));
    else if (!rank.has(id)) rank.set(id, k);
  }
  let unordered = ordered;
  for (let i = 0; i < plan.steps.length; i++) {
    const step = plan.steps[i]!;
    if (steps.get(step.id) === step && !rank.has(step.id)) {
      violations.push(violation('missing_from_order', `$.steps[${i}].id`, `step "${step.id}" is missing from execution_order`));
      rank.set(step.id, unordered++);
    }
  }

  const dependencies = dependencyFacts(plan, rank, boundedLoops, steps);
  for (const cycle of dependencies.cycles) {
    const i = plan.steps.indexOf(steps.get(cycle[0]!)!);
    violations.push(violation('cycle', `$.steps[${i}].depends_on`, `dependency cycle ${cycle.join(' → ')}`, cycle));
  }
  for (const [before, after] of dependencies.orderedEdges) {
    const pb = rank.get(before)!;
    const pa = rank.get(after)!;
    if (pb > pa && pb < ordered && pa < ordered) {
      violations.push(violation('order_before_prerequisite', `$.execution_order[${pa}]`, `"${after}" runs before its prerequisite "${before}"`));
    }
  }

  return { plan, agents, steps, rank, dependencies, topology: dependencies.topology, violations };
}
