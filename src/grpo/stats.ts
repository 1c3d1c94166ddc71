export function mean(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return xs.length === 0 ? 0 : s / xs.length;
}

/** Standard deviation with `ddof` delta degrees of freedom (0: population, numpy's default; 1: sample). */
export function std(xs: readonly number[], ddof: 0 | 1): number {
  const n = xs.length;
  if (n - ddof <= 0) return 0;
  const m = mean(xs);
  let ss = 0;
  for (const x of xs) ss += (x - m) * (x - m);
  return Math.sqrt(ss / (n - ddof));
}

/**
 * Mean that does not depend on the order the values arrived in: they are summed in sorted order, so a
 * step split over any number of requests, in any order, yields the bit-identical mean.
 */
export function orderIndependentMean(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  let s = 0;
  for (const x of sorted) s += x;
  return s / sorted.length;
}
