import type { StructuralReward } from '../contracts/results.js';
import type { PlanAnalysis } from '../plan/analyze.js';
import type { ResolvedPalette } from '../plan/palette.js';

// PersonalPlan §3.3: R_struct = (DAG + DC + ATR) / 3
export function structuralReward(a: PlanAnalysis, palette: ResolvedPalette): StructuralReward {
  // DAG ∈ {0,1}: the depends_on graph is acyclic; cycles inside a declared bounded loop are allowed.
  const dag = a.dependencies.cycles.length === 0 ? 1 : 0;
  // DC: share of declared prerequisite edges that resolve to a step (vacuously 1 with none declared).
  const { declaredEdges, resolvedEdges } = a.dependencies;
  const dc = declaredEdges === 0 ? 1 : resolvedEdges / declaredEdges;

  // ATR = mean(step-level agent–tool validity, plan-level capability coverage). A step is valid when its
  // agent exists and its tool, if any, is in the palette and in that agent's tools. Coverage is the share of
  // declared agents that run at least one step: it catches the declared-but-idle agent failure mode.
  const steps = a.plan.steps;
  let validSteps = 0;
  const used = new Set<string>();
  for (const step of steps) {
    const agent = a.agents.get(step.agent);
    if (agent) used.add(agent.id);
    if (agent && (!step.tool || (palette.tools.has(step.tool) && agent.tools.includes(step.tool)))) validSteps++;
  }
  const stepValidity = steps.length === 0 ? 0 : validSteps / steps.length;
  const agentIds = [...a.agents.keys()];
  const coverage = agentIds.length === 0 ? 0 : used.size / agentIds.length;
  const atr = (stepValidity + coverage) / 2;

  return {
    value: (dag + dc + atr) / 3,
    dag,
    dc,
    atr,
    step_tool_validity: stepValidity,
    agent_coverage: coverage,
    unused_agents: agentIds.filter((id) => !used.has(id)),
  };
}
