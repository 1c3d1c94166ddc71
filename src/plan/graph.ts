import { DirectedGraph } from 'graphology';
import { stronglyConnectedComponents } from 'graphology-components';
import { hasCycle, topologicalGenerations } from 'graphology-dag';
import type { Plan } from '../contracts/plan.js';

/** The `depends_on` graph: an edge prerequisite → dependent for every reference that resolves to a step. */
export interface DependencyGraph {
  graph: DirectedGraph;
  declaredEdges: number;
  resolvedEdges: number;
  /** Cycles not covered by a declared bounded loop, one concrete cycle (first node repeated at the end) each. */
  cycles: string[][];
  /** Edges inside a bounded loop's cycle: legitimate back edges, ignored for ordering and layering. */
  loopEdges: Set<string>;
}

export const edgeKey = (from: string, to: string): string => `${from}\u0000${to}`;

export function buildDependencyGraph(plan: Plan, stepIds: ReadonlySet<string>, boundedLoops: ReadonlyArray<ReadonlySet<string>>): DependencyGraph {
  const graph = new DirectedGraph();
  for (const id of stepIds) graph.mergeNode(id);
  let declaredEdges = 0;
  let resolvedEdges = 0;
  for (const step of plan.steps) {
    for (const dep of step.depends_on) {
      declaredEdges++;
      if (stepIds.has(dep)) {
        resolvedEdges++;
        graph.mergeEdge(dep, step.id);
      }
    }
  }
  const cycles: string[][] = [];
  const loopEdges = new Set<string>();
  if (hasCycle(graph)) {
    const order = new Map([...stepIds].map((id, i) => [id, i]));
    for (const component of stronglyConnectedComponents(graph)) {
      if (component.length === 1 && !graph.hasEdge(component[0]!, component[0]!)) continue;
      const members = new Set(component);
      if (boundedLoops.some((loop) => component.every((n) => loop.has(n)))) {
        graph.forEachEdge((_e, _a, source, target) => {
          if (members.has(source) && members.has(target)) loopEdges.add(edgeKey(source, target));
        });
      } else {
        const start = component.reduce((a, b) => (order.get(a)! <= order.get(b)! ? a : b));
        cycles.push(findCycle(graph, start, members));
      }
    }
    cycles.sort((a, b) => order.get(a[0]!)! - order.get(b[0]!)!);
  }
  return { graph, declaredEdges, resolvedEdges, cycles, loopEdges };
}

/** A concrete cycle through `start` inside its strongly connected component (iterative DFS). */
function findCycle(graph: DirectedGraph, start: string, members: ReadonlySet<string>): string[] {
  const parent = new Map<string, string>();
  const stack = [start];
  const seen = new Set([start]);
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (const next of graph.outNeighbors(node).sort()) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let n = node; n !== start; n = parent.get(n)!) path.splice(1, 0, n);
        path.push(start);
        return path;
      }
      if (!seen.has(next)) {
        seen.add(next);
        parent.set(next, node);
        stack.push(next);
      }
    }
  }
  return [start, start];
}

/** PersonalPlan Table 4 topology metrics. */
export interface Topology {
  steps: number;
  edges: number;
  edge_density: number;
  max_fan_in: number;
  max_fan_out: number;
  layer_width: number | null;
  critical_path: number | null;
  critical_path_ratio: number | null;
  inter_agent_edge_ratio: number;
}

export function topology(dep: DependencyGraph, agentOf: ReadonlyMap<string, string>): Topology {
  const { graph } = dep;
  const n = graph.order;
  const e = graph.size;
  let maxIn = 0;
  let maxOut = 0;
  graph.forEachNode((node) => {
    maxIn = Math.max(maxIn, graph.inDegree(node));
    maxOut = Math.max(maxOut, graph.outDegree(node));
  });
  let interAgent = 0;
  graph.forEachEdge((_e, _a, source, target) => {
    if (agentOf.get(source) !== agentOf.get(target)) interAgent++;
  });

  let layerWidth: number | null = null;
  let critical: number | null = null;
  if (dep.cycles.length === 0 && n > 0) {
    let dag = graph;
    if (dep.loopEdges.size > 0) {
      dag = graph.copy();
      for (const key of dep.loopEdges) {
        const [s, t] = key.split('\u0000') as [string, string];
        dag.dropEdge(s, t);
      }
    }
    const generations = topologicalGenerations(dag);
    layerWidth = Math.max(...generations.map((g) => g.length));
    // Longest chain, in steps, by dynamic programming over the generations (each is in topological order).
    const longest = new Map<string, number>();
    critical = 0;
    for (const gen of generations) {
      for (const node of gen) {
        let best = 0;
        dag.forEachInNeighbor(node, (pred) => {
          best = Math.max(best, longest.get(pred) ?? 0);
        });
        longest.set(node, best + 1);
        critical = Math.max(critical, best + 1);
      }
    }
  }
  return {
    steps: n,
    edges: e,
    edge_density: n > 1 ? e / ((n * (n - 1)) / 2) : 0,
    max_fan_in: maxIn,
    max_fan_out: maxOut,
    layer_width: layerWidth,
    critical_path: critical,
    critical_path_ratio: critical === null ? null : critical / n,
    inter_agent_edge_ratio: e > 0 ? interAgent / e : 0,
  };
}
