/** |A ∩ B| / |A ∪ B|; two empty sets are identical, so 1. */
export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let common = 0;
  for (const x of small) if (large.has(x)) common++;
  return common / (a.size + b.size - common);
}

/** What jaccardAtLeast reads of a set: a Set, or a list of distinct members that answers `has` itself. */
export interface SetLike<T> extends Iterable<T> {
  readonly size: number;
  has(x: T): boolean;
}

/**
 * Whether jaccard(a, b) >= t, the same comparison, but stopping once the members left to check cannot
 * bring it there: most pairs of a plan's steps part after a few words. Only the larger set (b when the
 * sizes are equal) is asked `has`.
 */
export function jaccardAtLeast<T>(a: SetLike<T>, b: SetLike<T>, t: number): boolean {
  if (a.size === 0 && b.size === 0) return 1 >= t;
  const small = a.size <= b.size ? a : b;
  const large = small === a ? b : a;
  const total = a.size + b.size;
  let common = 0;
  let left = small.size;
  for (const x of small) {
    left--;
    if (large.has(x)) common++;
    // The ratio grows with the common count: at most common + left, it stays below t.
    else if ((common + left) / (total - common - left) < t) return false;
  }
  return common / (total - common) >= t;
}
