/** Cosine similarity of two vectors of equal length (0 when either is all zeros). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`cosine of vectors of length ${a.length} and ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Every pairwise cosine between two lists of vectors: result[i][j] = cosine(a[i], b[j]). */
export function cosineMatrix(a: readonly ArrayLike<number>[], b: readonly ArrayLike<number>[]): number[][] {
  return a.map((x) => b.map((y) => cosine(x, y)));
}
