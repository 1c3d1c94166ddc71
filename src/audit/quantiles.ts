// Bounded-memory quantiles for the audit's distribution tables.
//
// Method: exact counting of distinct values (value → count) while a metric has at most `maxExact` distinct
// values, which covers every integer topology metric of plans within the 1000-step limit and, in practice,
// the ratios too; past that, the counts fold into a log-bucketed histogram (DDSketch, Masson et al. 2019)
// whose every returned quantile is within `relativeError` (default 0.5 %) of the exact order statistic.
// Memory is O(maxExact) while exact, then O(log(max/min) / relativeError) buckets: about 2,800 buckets
// for values spanning 1e-6 … 1e6.

export interface QuantileSummary {
  n: number;
  mean: number | null;
  min: number | null;
  max: number | null;
  p10: number | null;
  median: number | null;
  p90: number | null;
  /** True while every quantile is exact (no fold into the sketch happened). */
  exact: boolean;
}

export class QuantileSketch {
  private n = 0;
  private sum = 0;
  private min = Infinity;
  private max = -Infinity;
  private exactCounts: Map<number, number> | null = new Map();
  // Sketch state, used once exactCounts overflowed: key i holds values in (γ^(i−1), γ^i]; zero and
  // negatives apart (the metrics here are ≥ 0, negatives are kept correct but coarse: mirrored buckets).
  private readonly gamma: number;
  private readonly logGamma: number;
  private zeros = 0;
  private readonly pos = new Map<number, number>();
  private readonly neg = new Map<number, number>();

  constructor(
    private readonly maxExact = 2048,
    readonly relativeError = 0.005,
  ) {
    this.gamma = (1 + relativeError) / (1 - relativeError);
    this.logGamma = Math.log(this.gamma);
  }

  add(x: number): void {
    if (!Number.isFinite(x)) return;
    this.n++;
    this.sum += x;
    if (x < this.min) this.min = x;
    if (x > this.max) this.max = x;
    if (this.exactCounts) {
      this.exactCounts.set(x, (this.exactCounts.get(x) ?? 0) + 1);
      if (this.exactCounts.size > this.maxExact) this.fold();
      return;
    }
    this.addToSketch(x, 1);
  }

  get count(): number {
    return this.n;
  }

  private fold(): void {
    const counts = this.exactCounts!;
    this.exactCounts = null;
    for (const [x, c] of counts) this.addToSketch(x, c);
  }

  private addToSketch(x: number, c: number): void {
    if (x === 0) {
      this.zeros += c;
      return;
    }
    const map = x > 0 ? this.pos : this.neg;
    const key = Math.ceil(Math.log(Math.abs(x)) / this.logGamma);
    map.set(key, (map.get(key) ?? 0) + c);
  }

  /**
   * q ∈ [0, 1]. Exact mode: linear interpolation between the two nearest order statistics (numpy's default).
   * Sketch mode: the bucket holding the order statistic at rank round(q·(n−1)), returned as the bucket's
   * midpoint 2γ^i/(γ+1), which is within relativeError of every value in the bucket; clamped to [min, max].
   */
  quantile(q: number): number | null {
    if (this.n === 0) return null;
    const h = q * (this.n - 1);
    if (this.exactCounts) {
      const sorted = [...this.exactCounts.entries()].sort((a, b) => a[0] - b[0]);
      const lo = Math.floor(h);
      const lower = valueAtRank(sorted, lo);
      if (h === lo) return lower;
      return lower + (h - lo) * (valueAtRank(sorted, lo + 1) - lower);
    }
    const rank = Math.round(h);
    const buckets: Array<[number, number]> = [
      ...[...this.neg.entries()].sort((a, b) => b[0] - a[0]).map(([k, c]): [number, number] => [-this.mid(k), c]),
      ...(this.zeros > 0 ? [[0, this.zeros] as [number, number]] : []),
      ...[...this.pos.entries()].sort((a, b) => a[0] - b[0]).map(([k, c]): [number, number] => [this.mid(k), c]),
    ];
    return Math.min(this.max, Math.max(this.min, valueAtRank(buckets, rank)));
  }

  private mid(key: number): number {
    return (2 * this.gamma ** key) / (this.gamma + 1);
  }

  summary(): QuantileSummary {
    const empty = this.n === 0;
    return {
      n: this.n,
      mean: empty ? null : this.sum / this.n,
      min: empty ? null : this.min,
      max: empty ? null : this.max,
      p10: this.quantile(0.1),
      median: this.quantile(0.5),
      p90: this.quantile(0.9),
      exact: this.exactCounts !== null,
    };
  }
}

/** The value at 0-based `rank` in (value, count) pairs sorted by value. */
function valueAtRank(sorted: ReadonlyArray<readonly [number, number]>, rank: number): number {
  let seen = 0;
  for (const [v, c] of sorted) {
    seen += c;
    if (rank < seen) return v;
  }
  return sorted[sorted.length - 1]![0];
}
