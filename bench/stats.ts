// Summaries the benches report.

/** The q-quantile of a sample, nearest rank: the value at ⌊q·n⌋ of the sorted sample (the largest for q near 1). */
export const quantile = (xs: readonly number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

/** Median and p99 of a sample of times. */
export const p50p99 = (xs: readonly number[]) => ({ p50: quantile(xs, 0.5), p99: quantile(xs, 0.99) });

/** How many answers had each status, in status order. */
export const statusCounts = (xs: ReadonlyArray<{ status: number | string }>): Record<string, number> =>
  Object.fromEntries([...new Set(xs.map((x) => String(x.status)))].sort().map((s) => [s, xs.filter((x) => String(x.status) === s).length]));
