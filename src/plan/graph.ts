import { DirectedGraph } from 'graphology';
import { stronglyConnectedComponents } from 'graphology-components';
import { topologicalGenerations } from 'graphology-dag';
import type { Plan } from '../contracts/plan.js';
import type { Topology } from '../contracts/results.js';

/** What the checks and rewards need from the `depends_on` graph (edges run prerequisite → dependent). */
export interface DependencyFacts {
  declaredEdges: number;
  resolvedEdges: number;
  /** Resolved edges except bounded loops' back edges, deduplicated: the ones execution_order must respect. */
  orderedEdges: Array<[string, string]>;
  /** Cycles not covered by a declared bounded loop, one concrete cycle (first node repeated at the end) each. */
  cycles: string[][];
  topology: Topology;
}

// Scoring is synchronous, so one graph instance is reused for every plan: building a fresh graphology
// instance per plan costs more than all the graph algorithms run on it, and plans of one rollout group
// mostly reuse the same step ids, so their nodes are kept and only the edges rebuilt. Every fact below
// is independent of node order.
const scratch = new DirectedGraph();

// graphology and graphology-dag keep adjacency in plain objects, where a step named "__proto__" or
// "constructor" would read the prototype. Such ids (and any id starting with the escape) get a NUL prefix:
// an injective mapping that leaves every ordinary id as it is.
const ESCAPE = '\u0000';
const nodeKey = (id: string): string => (id in Object.prototype || id.startsWith(ESCAPE) ? ESCAPE + id : id);
const stepId = (key: string): string => (key.startsWith(ESCAPE) ? key.slice(1) : key);

function resetTo(graph: DirectedGraph, keys: ReadonlySet<string>): void {
  graph.clearEdges();
  const stale: string[] = [];
  graph.forEachNode((node) => {
    if (!keys.has(node)) stale.push(node);
  });
  for (const node of stale) graph.dropNode(node);
  for (const key of keys) graph.mergeNode(key);
}

/**
 * Every fact the checks and rewards read from the `depends_on` graph of `plan`. `rank` orders the steps
 * (execution_order position, then declaration order): inside a bounded loop, an edge to a step of lower or
 * equal rank is the loop's back edge.
 */
export function dependencyFacts(
  plan: Plan,
  rank: ReadonlyMap<string, number>,
  boundedLoops: ReadonlyArray<ReadonlySet<string>>,
  steps: ReadonlyMap<string, { agent: string }>,
): DependencyFacts {
  const fast = acyclicFacts(plan, rank, steps);
  if (fast !== null && fast !== CYCLIC) return fast;
  return graphFacts(plan, rank, boundedLoops, steps, fast === CYCLIC);
}

/** What acyclicFacts answers for a graph with a cycle. */
const CYCLIC = 'cyclic';

/**
 * The facts of a plan whose graph is a DAG, CYCLIC when it has a cycle (a bounded loop's included), or null
 * when a step id is declared twice, which it leaves to the general case. Most plans are DAGs, and for them
 * this layering over index arrays is the whole computation: built in graphology, a plan's edges and their
 * keys were a fifth of all judging time and much of its garbage.
 */
function acyclicFacts(plan: Plan, rank: ReadonlyMap<string, number>, steps: ReadonlyMap<string, { agent: string }>): DependencyFacts | typeof CYCLIC | null {
  const index = new Map<string, number>();
  for (const id of rank.keys()) index.set(id, index.size);
  const n = index.size;
  const inDegree = new Int32Array(n);
  const successors: number[][] = [];
  for (let v = 0; v < n; v++) successors.push([]);
  const orderedEdges: Array<[string, string]> = [];
  // latestTo[v] = the last step an edge from v went to: every edge into a step comes from its own
  // depends_on, read in one go, so a repeated edge is one whose source already points there.
  const latestTo = new Int32Array(n).fill(-1);
  let declaredEdges = 0;
  let resolvedEdges = 0;
  let interAgent = 0;
  for (const step of plan.steps) {
    // A second step of the same id adds edges into the first one's node: left to the general case.
    if (steps.get(step.id) !== step) return null;
    const to = index.get(step.id)!;
    for (const dep of step.depends_on) {
      declaredEdges++;
      const from = index.get(dep);
      if (from === undefined) continue;
      resolvedEdges++;
      if (from === to) return CYCLIC;
      if (latestTo[from] === to) continue;
      latestTo[from] = to;
      inDegree[to]!++;
      successors[from]!.push(to);
      orderedEdges.push([dep, step.id]);
      if (steps.get(dep)!.agent !== steps.get(step.id)!.agent) interAgent++;
    }
  }

  let maxIn = 0;
  let maxOut = 0;
  for (let v = 0; v < n; v++) {
    maxIn = Math.max(maxIn, inDegree[v]!);
    maxOut = Math.max(maxOut, successors[v]!.length);
  }

  // Kahn's algorithm one generation at a time (it uses up inDegree): a node's generation is the longest
  // chain ending at it.
  let generation: number[] = [];
  for (let v = 0; v < n; v++) if (inDegree[v] === 0) generation.push(v);
  let placed = 0;
  let layerWidth = 0;
  let generations = 0;
  while (generation.length > 0) {
    placed += generation.length;
    layerWidth = Math.max(layerWidth, generation.length);
    generations++;
    const next: number[] = [];
    for (const v of generation) for (const w of successors[v]!) if (--inDegree[w]! === 0) next.push(w);
    generation = next;
  }
  if (placed < n) return CYCLIC;
  return {
    declaredEdges,
    resolvedEdges,
    orderedEdges,
    cycles: [],
    topology: topologyOf(n, orderedEdges.length, maxIn, maxOut, interAgent, n > 0 ? layerWidth : null, n > 0 ? generations : null),
  };
}

/** The topology figures from the graph's counts; layering and critical path are null when it has a cycle. */
function topologyOf(n: number, e: number, maxIn: number, maxOut: number, interAgent: number, layerWidth: number | null, critical: number | null): Topology {
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

/**
 * The general case, cycles and bounded loops included: builds the graph in the shared instance and derives
 * every fact before returning. `cyclic`: the graph is known to have a cycle, so it is not layered first
 * (layering a graph with a cycle ends in a throw); a graph found to have none is layered after all, so the
 * hint changes no fact.
 */
export function graphFacts(
  plan: Plan,
  rank: ReadonlyMap<string, number>,
  boundedLoops: ReadonlyArray<ReadonlySet<string>>,
  steps: ReadonlyMap<string, { agent: string }>,
  cyclic = false,
): DependencyFacts {
  const keys = new Set<string>();
  for (const id of rank.keys()) keys.add(nodeKey(id));
  const rankOfKey = (key: string) => rank.get(stepId(key))!;

  const graph = scratch;
  resetTo(graph, keys);
  let declaredEdges = 0;
  let resolvedEdges = 0;
  for (const step of plan.steps) {
    for (const dep of step.depends_on) {
      declaredEdges++;
      if (rank.has(dep)) {
        resolvedEdges++;
        graph.mergeEdge(nodeKey(dep), nodeKey(step.id));
      }
    }
  }

  // The common case, a DAG, costs one traversal: topologicalGenerations throws only on a cycle.
  let generations = cyclic ? null : tryGenerations(graph);
  const cycles: string[][] = [];
  const loopEdges = new Set<string>();
  if (generations === null) {
    for (const component of stronglyConnectedComponents(graph)) {
      if (component.length === 1 && !graph.hasEdge(component[0]!, component[0]!)) continue;
      const members = new Set(component);
      if (boundedLoops.some((loop) => component.every((key) => loop.has(stepId(key))))) {
        graph.forEachEdge((edge, _attr, source, target) => {
          if (members.has(source) && members.has(target) && rankOfKey(target) <= rankOfKey(source)) loopEdges.add(edge);
        });
      } else {
        const start = component.reduce((a, b) => (rankOfKey(a) <= rankOfKey(b) ? a : b));
        cycles.push(findCycle(graph, start, members, rankOfKey).map(stepId));
      }
    }
    cycles.sort((a, b) => rank.get(a[0]!)! - rank.get(b[0]!)!);
  }

  const orderedEdges: Array<[string, string]> = [];
  let maxIn = 0;
  let maxOut = 0;
  let interAgent = 0;
  graph.forEachNode((node) => {
    maxIn = Math.max(maxIn, graph.inDegree(node));
    maxOut = Math.max(maxOut, graph.outDegree(node));
  });
  graph.forEachEdge((edge, _attr, source, target) => {
    const from = stepId(source);
    const to = stepId(target);
    if (steps.get(from)!.agent !== steps.get(to)!.agent) interAgent++;
    if (!loopEdges.has(edge)) orderedEdges.push([from, to]);
  });

  const n = graph.order;
  const e = graph.size;
  let layerWidth: number | null = null;
  let critical: number | null = null;
  if (cycles.length === 0 && n > 0) {
    if (generations === null) {
      // Only bounded-loop cycles: layer the graph without their back edges.
      for (const edge of loopEdges) graph.dropEdge(edge);
      generations = topologicalGenerations(graph);
    }
    layerWidth = 0;
    critical = 0;
    // Longest chain, in steps, by dynamic programming over the generations (each is in topological order).
    const longest = new Map<string, number>();
    for (const gen of generations) {
      layerWidth = Math.max(layerWidth, gen.length);
      for (const node of gen) {
        let best = 0;
        graph.forEachInNeighbor(node, (pred) => {
          best = Math.max(best, longest.get(pred)!);
        });
        longest.set(node, best + 1);
        critical = Math.max(critical, best + 1);
      }
    }
  }
  return { declaredEdges, resolvedEdges, orderedEdges, cycles, topology: topologyOf(n, e, maxIn, maxOut, interAgent, layerWidth, critical) };
}

function tryGenerations(graph: DirectedGraph): string[][] | null {
  try {
    return topologicalGenerations(graph);
  } catch {
    return null;
  }
}

/** A concrete cycle through `start` inside its strongly connected component (iterative DFS, lowest rank first). */
function findCycle(graph: DirectedGraph, start: string, members: ReadonlySet<string>, rankOf: (key: string) => number): string[] {
  const parent = new Map<string, string>();
  const stack = [start];
  const seen = new Set([start]);
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (const next of graph.outNeighbors(node).sort((a, b) => rankOf(a) - rankOf(b))) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let v = node; v !== start; v = parent.get(v)!) path.splice(1, 0, v);
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
