/**
 * A reference for the projection onto the capped simplex {w : Σ w = 1, lo ≤ w_i ≤ hi}, solved as a small
 * quadratic program by brute force instead of by the shift τ: for every assignment of each coordinate to
 * its lower bound, its upper bound or free (3^n of them), the free coordinates are v_i − t with the one t
 * that makes the sum 1; of the candidates that are feasible, the nearest to v is the projection (the
 * minimizer has some such assignment, and for it the candidate is the minimizer).
 */
export function projectByEnumeration(v: readonly number[], lo: number, hi: number): number[] {
  const n = v.length;
  let best: number[] | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (let code = 0; code < 3 ** n; code++) {
    const role = Array.from({ length: n }, (_, i) => Math.floor(code / 3 ** i) % 3); // 0 lo, 1 hi, 2 free
    const free = role.flatMap((r, i) => (r === 2 ? [i] : []));
    const fixed = role.reduce((s, r) => s + (r === 0 ? lo : r === 1 ? hi : 0), 0);
    const t = free.length === 0 ? 0 : (free.reduce((s, i) => s + v[i]!, 0) + fixed - 1) / free.length;
    const w = role.map((r, i) => (r === 0 ? lo : r === 1 ? hi : v[i]! - t));
    // The bounds exactly (a free value that rounds past its bound is the same point as the assignment that
    // puts it on the bound, a candidate too) and the sum within rounding: a looser test lets in points just
    // off the set that are nearer to v than the projection.
    const feasible = Math.abs(w.reduce((a, b) => a + b, 0) - 1) < 1e-14 && w.every((x) => x >= lo && x <= hi);
    const distance = w.reduce((s, x, i) => s + (x - v[i]!) ** 2, 0);
    if (feasible && distance < bestDistance) {
      best = w;
      bestDistance = distance;
    }
  }
  if (best === null) throw new Error(`no point of the capped simplex: n = ${n}, lo = ${lo}, hi = ${hi}`);
  return best;
}
