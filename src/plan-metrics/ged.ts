import { GED_BUDGET } from '../contracts/evaluate-plan.js';
import type { Plan } from '../contracts/plan.js';

/** A directed graph on nodes 0 … nodes − 1. Duplicate edges count once; a self-loop is an edge. */
export interface DiGraph {
  nodes: number;
  edges: ReadonlyArray<readonly [number, number]>;
}

export interface GedOptions {
  /**
   * Search work all the pairs of one call may spend together (units: see `Search.work`; default
   * GED_BUDGET.default); a pair still searching when it is spent reports bounds with `exact: false`. A count,
   * not a clock: the same pairs always stop at the same point and get the same bounds.
   */
  budget?: number;
  /** Polled during the search: true cuts every search short (the caller gave up on the answer). */
  stop?: () => boolean;
}

export interface GedResult {
  /** The cheapest edit path found: the distance when `exact`, else an upper bound. */
  distance: number;
  /** A proven lower bound: equal to `distance` when `exact`. */
  lower: number;
  /** True when the search finished, so `distance` is the optimum. */
  exact: boolean;
  /** Work the search spent (Search.work). */
  work: number;
}

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
 * with default costs. Exact by depth-first branch and bound within `budget`; when cut, the best upper
 * bound found (always at least one complete greedy mapping) and a proven lower bound, with `exact: false`.
 *
 * Reduction: matching an unmatched node pair never costs more than deleting one and inserting the other
 * (−2 node cost, no edge lost), so an optimal edit path matches every node of the smaller graph A into the
 * larger B, and
 *     GED = |n_B − n_A| + e_A + e_B − 2 · max_φ |{(u, v) ∈ E_A : (φu, φv) ∈ E_B}|
 * over injective φ: V_A → V_B, i.e. a maximum common edge subgraph. The search maximizes preserved edges.
 */
export function graphEditDistance(g1: DiGraph, g2: DiGraph, options: GedOptions = {}): GedResult {
  return graphEditDistances([[g1, g2]], options)[0]!;
}

/**
 * The graph edit distances of several pairs under one budget, shared max-min fairly: every search first
 * makes its greedy descent (so each has a complete mapping), then the searches still running take equal
 * shares of what is left, round after round, and a search that finishes early leaves the rest of its
 * share to the others. The shares depend only on the pairs and the budget, never on a clock.
 */
export function graphEditDistances(pairs: ReadonlyArray<readonly [DiGraph, DiGraph]>, options: GedOptions = {}): GedResult[] {
  const stop = options.stop ?? (() => false);
  const searches = pairs.map(([g1, g2]) => new Search(g1, g2, stop));
  let left = options.budget ?? GED_BUDGET.default;
  for (const s of searches) left -= s.run(0);
  for (let running = searches.filter((s) => !s.done); left > 0 && running.length > 0 && !stop(); running = running.filter((s) => !s.done)) {
    // Shares fixed for the round, so that equal pairs get equal work whatever their order.
    const share = Math.max(1, Math.floor(left / running.length));
    for (const s of running) left -= s.run(share);
  }
  return searches.map((s) => s.result());
}

// What an expansion costs besides its loops (the arrays it allocates, its sort), in the units of Search.work.
const EXPANSION_WORK = 1000;

/** Whether g1 is A in a search of (g1, g2): fewer nodes, then fewer edges, then the first edge list in lexical order. */
function precedes(g1: DiGraph, g2: DiGraph): boolean {
  if (g1.nodes !== g2.nodes) return g1.nodes < g2.nodes;
  if (g1.edges.length !== g2.edges.length) return g1.edges.length < g2.edges.length;
  for (let i = 0; i < g1.edges.length; i++) {
    const [a, b] = [g1.edges[i]!, g2.edges[i]!];
    if (a[0] !== b[0] || a[1] !== b[1]) return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
  }
  return true;
}

/** A node of the search whose children are being tried: order[k] takes each candidate in turn. */
interface Frame {
  k: number;
  /** Edges preserved by the assignments of order[0 … k − 1]. */
  preserved: number;
  /** Free nodes of B for order[k], best first, and the edges each preserves. */
  candidates: number[];
  gains: number[];
  /** Index of the next candidate to try. */
  next: number;
  /** preserved + remainingBound at this node, once computed. */
  bound: number;
}

/** The branch and bound of one pair, as an explicit stack, so that it can stop when its share is spent and go on later. */
class Search {
  done = false;
  /**
   * Work spent: per expansion, the node pairs and edges its loops look at (candidates, bound), counted
   * from the loops' sizes, plus EXPANSION_WORK; so it grows with the time a search takes whatever the
   * graphs' size and density.
   */
  work = 0;
  private readonly A: Adjacency;
  private readonly B: Adjacency;
  private readonly base: number;
  private readonly order: number[] = [];
  private readonly earlierOut: number[][] = [];
  private readonly earlierIn: number[][] = [];
  private readonly phi: Int32Array;
  private readonly used: Uint8Array;
  private readonly frames: Frame[] = [];
  /** The node to expand next (null once the stack is empty or the search finished). */
  private pending: { k: number; preserved: number } | null = { k: 0, preserved: 0 };
  private best = -1; // most preserved edges found
  private rootBound = 0;
  private expanded = 0;

  constructor(
    g1: DiGraph,
    g2: DiGraph,
    private readonly stop: () => boolean,
  ) {
    // GED is symmetric under unit costs, so A is the graph with fewer nodes; of two as large, the one first
    // by edges, so that a search its budget cuts gives the same bounds either way round.
    [this.A, this.B] = precedes(g1, g2) ? [adjacency(g1), adjacency(g2)] : [adjacency(g2), adjacency(g1)];
    const { A } = this;
    this.base = this.B.n - A.n + A.edges + this.B.edges;
    this.phi = new Int32Array(A.n).fill(-1); // A node → B node
    this.used = new Uint8Array(this.B.n);
    if (A.n === 0) {
      this.best = 0;
      this.done = true;
      return;
    }
    this.order = searchOrder(A);
    const level = new Int32Array(A.n);
    this.order.forEach((u, k) => {
      level[u] = k;
    });
    // Neighbours of order[k] placed earlier in the order: the edges decided when order[k] is assigned.
    this.earlierOut = this.order.map((u) => A.out[u]!.filter((v) => level[v]! < level[u]!));
    this.earlierIn = this.order.map((u) => A.in[u]!.filter((v) => level[v]! < level[u]!));
    this.rootBound = this.remainingBound();
  }

  /**
   * Searches until about `allowance` more work is spent (one expansion past it at most), the search ends,
   * or `stop` says so; returns the work spent. The first complete mapping is always reached, whatever the
   * allowance: until then the descent is greedy and skips the bound, so a huge graph still gets an upper
   * bound quickly.
   */
  run(allowance: number): number {
    const { A, order, phi, used, frames } = this;
    const start = this.work;
    while (!this.done) {
      if (this.best === this.rootBound) this.done = true;
      else if (this.pending) {
        const { k, preserved } = this.pending;
        if (k === A.n) {
          if (preserved > this.best) this.best = preserved;
          this.pending = null;
          continue;
        }
        if (this.best >= 0 && (this.work - start >= allowance || ((++this.expanded & 255) === 0 && this.stop()))) break;
        this.work += EXPANSION_WORK;
        let bound = Number.NaN;
        if (this.best >= 0) {
          bound = preserved + this.remainingBound();
          if (bound <= this.best) {
            this.pending = null;
            continue;
          }
        }
        this.pending = null;
        frames.push({ k, preserved, ...this.candidates(k), next: 0, bound });
      } else {
        const top = frames.at(-1);
        if (!top) {
          this.done = true;
          break;
        }
        const u = order[top.k]!;
        if (top.next > 0) {
          used[phi[u]!] = 0;
          phi[u] = -1;
        }
        if (top.next === top.candidates.length) {
          frames.pop();
          continue;
        }
        const v = top.candidates[top.next]!;
        this.pending = { k: top.k + 1, preserved: top.preserved + top.gains[top.next]! };
        top.next++;
        phi[u] = v;
        used[v] = 1;
      }
    }
    return this.work - start;
  }

  /** Free nodes of B for order[k]: most preserved edges first; among equals, the in- and out-degrees closest to u's. */
  private candidates(k: number): { candidates: number[]; gains: number[] } {
    const { A, B, phi, used } = this;
    const u = this.order[k]!;
    const earlierOut = this.earlierOut[k]!;
    const earlierIn = this.earlierIn[k]!;
    const scored: Array<[number, number, number]> = [];
    for (let v = 0; v < B.n; v++) {
      if (used[v]) continue;
      let g = A.self[u]! & B.self[v]!;
      for (const a of earlierOut) g += B.has[v * B.n + phi[a]!]!;
      for (const a of earlierIn) g += B.has[phi[a]! * B.n + v]!;
      scored.push([g, Math.abs(A.out[u]!.length - B.out[v]!.length) + Math.abs(A.in[u]!.length - B.in[v]!.length), v]);
    }
    scored.sort((x, y) => y[0] - x[0] || x[1] - y[1] || x[2] - y[2]);
    this.work += B.n + scored.length * (2 + earlierOut.length + earlierIn.length);
    return { candidates: scored.map((c) => c[2]), gains: scored.map((c) => c[0]) };
  }

  /** The answer, once the searching is over (it takes the stack apart). */
  result(): GedResult {
    const distance = this.base - 2 * this.best;
    if (this.done) return { distance, lower: distance, exact: true, work: this.work };
    // What the unexplored part of the tree may still hold: the pending node's bound, and for every node on
    // the stack with candidates left to try, its own bound (which bounds each of its children's).
    let most = this.best;
    if (this.pending) most = Math.max(most, this.pending.k === this.A.n ? this.pending.preserved : this.pending.preserved + this.remainingBound());
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const f = this.frames[i]!;
      const u = this.order[f.k]!;
      if (f.next > 0) {
        this.used[this.phi[u]!] = 0;
        this.phi[u] = -1;
      }
      if (f.next < f.candidates.length) most = Math.max(most, Number.isNaN(f.bound) ? f.preserved + this.remainingBound() : f.bound);
    }
    this.frames.length = 0;
    this.pending = null;
    return { distance, lower: this.base - 2 * Math.min(most, this.rootBound), exact: false, work: this.work };
  }

  /** remainingBound of the current mapping, its work counted. */
  private remainingBound(): number {
    const r = remainingBound(this.A, this.B, this.phi, this.used);
    this.work += r.work;
    return r.bound;
  }
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
function remainingBound(A: Adjacency, B: Adjacency, phi: Int32Array, used: Uint8Array): { bound: number; work: number } {
  let work = A.n + B.n;
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
    work += A.out[u]!.length + A.in[u]!.length;
    if (mappedOut.length + mappedIn.length === 0) continue;
    work += freeB.length * (mappedOut.length + mappedIn.length);
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
    work += B.out[v]!.length + B.in[v]!.length;
  }
  const inner = Math.min(innerA, innerB, sortedPairing(outA, outB), sortedPairing(inA, inB));
  return { bound: Math.min(cross, crossB) + inner + Math.min(selfA, selfB), work };
}

/** Σ min(a_i, b_i) with both sorted descending: the most any injective pairing of a into b can reach. */
function sortedPairing(a: number[], b: number[]): number {
  a.sort((x, y) => y - x);
  b.sort((x, y) => y - x);
  let s = 0;
  for (let i = 0; i < a.length && i < b.length; i++) s += Math.min(a[i]!, b[i]!);
  return s;
}
