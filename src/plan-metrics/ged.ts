import type { Plan } from '../contracts/plan.js';

/** A directed graph on nodes 0 … nodes − 1. Duplicate edges count once; a self-loop is an edge. */
export interface DiGraph {
  nodes: number;
  edges: ReadonlyArray<readonly [number, number]>;
}

export interface GedOptions {
  /** Wall-clock budget; past it the best mapping found so far is returned with `exact: false`. */
  timeoutMs?: number;
  /** Polled with the clock: true cuts the search as the time limit does (the caller gave up on the answer). */
  stop?: () => boolean;
}

export interface GedResult {
  distance: number;
  /** True when the search finished, so `distance` is the optimum; false when the time limit cut it. */
  exact: boolean;
  /** Search nodes expanded (for benchmarking). */
  expanded: number;
}

export const DEFAULT_GED_TIMEOUT_MS = 2000;

/**
 * The `depends_on` graph of a plan: one node per distinct step id (declaration order), one edge
 * prerequisite → dependent per distinct resolved dependency. Bounded loops' back edges are kept: GED
 * compares the declared structure, not the execution layering.
 */
export function planGraph(plan: Plan): DiGraph & { ids: string[] } {
  const index = new Map<string, number>();
  for (const s of plan.steps) if (!index.has(s.id)) index.set(s.id, index.size);
  const seen = new Set<number>();
  const edges: Array<[number, number]> = [];
  const n = index.size;
  for (const s of plan.steps) {
    const to = index.get(s.id)!;
    for (const dep of s.depends_on) {
      const from = index.get(dep);
      if (from === undefined || seen.has(from * n + to)) continue;
      seen.add(from * n + to);
      edges.push([from, to]);
    }
  }
  return { nodes: n, edges, ids: [...index.keys()] };
}

interface Adjacency {
  n: number;
  /** Row-major n × n matrix: has[u * n + v] = 1 when u → v. */
  has: Uint8Array;
  out: number[][];
  in: number[][];
  self: Uint8Array;
  /** Distinct edges, self-loops included. */
  edges: number;
}

function adjacency(g: DiGraph): Adjacency {
  const n = g.nodes;
  const has = new Uint8Array(n * n);
  const out: number[][] = Array.from({ length: n }, () => []);
  const inn: number[][] = Array.from({ length: n }, () => []);
  const self = new Uint8Array(n);
  let edges = 0;
  for (const [u, v] of g.edges) {
    if (!(u >= 0 && u < n && v >= 0 && v < n)) throw new RangeError(`edge ${u} → ${v} outside 0…${n - 1}`);
    if (has[u * n + v]) continue;
    has[u * n + v] = 1;
    edges++;
    if (u === v) self[u] = 1;
    else {
      out[u]!.push(v);
      inn[v]!.push(u);
    }
  }
  return { n, has, out, in: inn, self, edges };
}

/**
 * Graph edit distance with unit costs for node and edge insertion and deletion and free substitution
 * (node labels interchangeable: structure only), as networkx's `graph_edit_distance(G1, G2)` on DiGraphs
 * with default costs. Exact by depth-first branch and bound within `timeoutMs`; when cut, the best upper
 * bound found (always at least one complete greedy mapping) with `exact: false`.
 *
 * Reduction: matching an unmatched node pair never costs more than deleting one and inserting the other
 * (−2 node cost, no edge lost), so an optimal edit path matches every node of the smaller graph A into the
 * larger B, and
 *     GED = |n_B − n_A| + e_A + e_B − 2 · max_φ |{(u, v) ∈ E_A : (φu, φv) ∈ E_B}|
 * over injective φ: V_A → V_B, i.e. a maximum common edge subgraph. The search maximizes preserved edges.
 */
export function graphEditDistance(g1: DiGraph, g2: DiGraph, options: GedOptions = {}): GedResult {
  const deadline = performance.now() + (options.timeoutMs ?? DEFAULT_GED_TIMEOUT_MS);
  // GED is symmetric under unit costs, so A is the graph with fewer nodes.
  const [A, B] = g1.nodes <= g2.nodes ? [adjacency(g1), adjacency(g2)] : [adjacency(g2), adjacency(g1)];
  const base = B.n - A.n + A.edges + B.edges;
  if (A.n === 0) return { distance: base, exact: true, expanded: 0 };

  const order = searchOrder(A);
  const level = new Int32Array(A.n);
  order.forEach((u, k) => {
    level[u] = k;
  });
  // Neighbours of order[k] placed earlier in the order: the edges decided when order[k] is assigned.
  const earlierOut = order.map((u) => A.out[u]!.filter((v) => level[v]! < level[u]!));
  const earlierIn = order.map((u) => A.in[u]!.filter((v) => level[v]! < level[u]!));

  const phi = new Int32Array(A.n).fill(-1); // A node → B node
  const used = new Uint8Array(B.n);
  let best = -1; // most preserved edges found
  let expanded = 0;
  let cut = false;
  const rootBound = remainingBound(A, B, phi, used);

  const gain = (k: number, v: number): number => {
    const u = order[k]!;
    let g = A.self[u]! & B.self[v]!;
    for (const a of earlierOut[k]!) g += B.has[v * B.n + phi[a]!]!;
    for (const a of earlierIn[k]!) g += B.has[phi[a]! * B.n + v]!;
    return g;
  };

  const search = (k: number, preserved: number): void => {
    if (k === A.n) {
      if (preserved > best) best = preserved;
      return;
    }
    if ((++expanded & 255) === 0 && (performance.now() > deadline || options.stop?.() === true)) cut = true;
    if (cut && best >= 0) return;
    // Until a first complete mapping exists the descent is greedy and skips the bound, so a huge graph
    // still gets an upper bound quickly.
    if (best >= 0 && preserved + remainingBound(A, B, phi, used) <= best) return;
    const u = order[k]!;
    // Most preserved edges first; among equals, the node of B whose in- and out-degrees are closest.
    const candidates: Array<[number, number, number]> = [];
    for (let v = 0; v < B.n; v++) {
      if (!used[v]) candidates.push([gain(k, v), Math.abs(A.out[u]!.length - B.out[v]!.length) + Math.abs(A.in[u]!.length - B.in[v]!.length), v]);
    }
    candidates.sort((x, y) => y[0] - x[0] || x[1] - y[1] || x[2] - y[2]);
    for (const [g, , v] of candidates) {
      phi[u] = v;
      used[v] = 1;
      search(k + 1, preserved + g);
      phi[u] = -1;
      used[v] = 0;
      if (best === rootBound || (cut && best >= 0)) return;
    }
  };
  search(0, 0);
  return { distance: base - 2 * best, exact: !cut || best === rootBound, expanded };
}

/**
 * A's nodes ordered so each one has as many edges as possible to those before it (then by degree): edges
 * are decided early, so the gains guide the greedy descent and the bound tightens fast.
 */
function searchOrder(A: Adjacency): number[] {
  const degree = (u: number) => A.out[u]!.length + A.in[u]!.length;
  const links = new Int32Array(A.n);
  const placed = new Uint8Array(A.n);
  const order: number[] = [];
  for (let k = 0; k < A.n; k++) {
    let pick = -1;
    for (let u = 0; u < A.n; u++) {
      if (placed[u]) continue;
      if (pick < 0 || links[u]! > links[pick]! || (links[u] === links[pick] && degree(u) > degree(pick))) pick = u;
    }
    placed[pick] = 1;
    order.push(pick);
    for (const v of A.out[pick]!) links[v]!++;
    for (const v of A.in[pick]!) links[v]!++;
  }
  return order;
}

/**
 * Upper bound on the edges still preservable given the partial mapping. A's undecided edges split into
 * those with one mapped endpoint and those with none:
 * - one mapped endpoint: each unmapped u keeps at most max over free v of the edges it would preserve
 *   towards mapped nodes (injectivity relaxed), and no more than B has between free and used nodes;
 * - none mapped: at most min(edges among A's unmapped, edges among B's free) and the sorted out- and
 *   in-degree pairings (an injective pairing preserves at most Σ min(deg_A, deg_B), largest with largest).
 */
function remainingBound(A: Adjacency, B: Adjacency, phi: Int32Array, used: Uint8Array): number {
  let cross = 0;
  const freeB: number[] = [];
  for (let v = 0; v < B.n; v++) if (!used[v]) freeB.push(v);
  const outA: number[] = [];
  const inA: number[] = [];
  let innerA = 0;
  let selfA = 0;
  for (let u = 0; u < A.n; u++) {
    if (phi[u]! >= 0) continue;
    selfA += A.self[u]!;
    let outU = 0;
    let inU = 0;
    const mappedOut: number[] = [];
    const mappedIn: number[] = [];
    for (const w of A.out[u]!)
      if (phi[w]! >= 0) mappedOut.push(phi[w]!);
      else outU++;
    for (const w of A.in[u]!)
      if (phi[w]! >= 0) mappedIn.push(phi[w]!);
      else inU++;
    outA.push(outU);
    inA.push(inU);
    innerA += outU;
    if (mappedOut.length + mappedIn.length === 0) continue;
    let top = 0;
    for (const v of freeB) {
      let g = 0;
      for (const b of mappedOut) g += B.has[v * B.n + b]!;
      for (const b of mappedIn) g += B.has[b * B.n + v]!;
      if (g > top) top = g;
      if (top === mappedOut.length + mappedIn.length) break;
    }
    cross += top;
  }
  const outB: number[] = [];
  const inB: number[] = [];
  let innerB = 0;
  let crossB = 0;
  let selfB = 0;
  for (const v of freeB) {
    selfB += B.self[v]!;
    let o = 0;
    let i = 0;
    for (const w of B.out[v]!)
      if (used[w]) crossB++;
      else o++;
    for (const w of B.in[v]!)
      if (used[w]) crossB++;
      else i++;
    outB.push(o);
    inB.push(i);
    innerB += o;
  }
  const inner = Math.min(innerA, innerB, sortedPairing(outA, outB), sortedPairing(inA, inB));
  return Math.min(cross, crossB) + inner + Math.min(selfA, selfB);
}

/** Σ min(a_i, b_i) with both sorted descending: the most any injective pairing of a into b can reach. */
function sortedPairing(a: number[], b: number[]): number {
  a.sort((x, y) => y - x);
  b.sort((x, y) => y - x);
  let s = 0;
  for (let i = 0; i < a.length && i < b.length; i++) s += Math.min(a[i]!, b[i]!);
  return s;
}
