/** |A ∩ B| / |A ∪ B|; two empty sets are identical, so 1. */
export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let common = 0;
  for (const x of small) if (large.has(x)) common++;
  return common / (a.size + b.size - common);
}
