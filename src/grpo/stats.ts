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
