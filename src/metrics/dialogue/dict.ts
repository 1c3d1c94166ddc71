// Traver's Dict protocol (arXiv 2502.13311, §4): tutoring outcomes measured on a simulated student.

/**
 * Unbiased pass@k (Chen et al. 2021): 1 − C(n−c, k) / C(n, k) for n samples of which c pass, as a
 * running product so large n do not overflow.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (![n, c, k].every(Number.isInteger) || n < 1 || c < 0 || c > n || k < 1 || k > n) {
    throw new RangeError(`pass@k needs integers 1 ≤ k ≤ n and 0 ≤ c ≤ n, got n=${n} c=${c} k=${k}`);
  }
  if (n - c < k) return 1;
  let fail = 1; // C(n−c, k) / C(n, k) = Π_{i=n−c+1}^{n} (1 − k/i)
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

/** Recall@k over dependency sets: the share of the reference dependencies among the first k predicted. */
export function recallAtK(predicted: readonly string[], reference: readonly string[], k: number): number | null {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
  const gold = new Set(reference);
  if (gold.size === 0) return null;
  const top = new Set(predicted.slice(0, k));
  let hit = 0;
  for (const d of gold) if (top.has(d)) hit++;
  return hit / gold.size;
}

/** Tutoring outcome rate Δ% = (post − pre) / pre, e.g. of pass@k before and after tutoring; null at pre = 0. */
export function outcomeRate(pre: number, post: number): number | null {
  return pre === 0 ? null : (post - pre) / pre;
}

const COGNITIVE_LOAD_WORDS = 60;

/** f_CL: a tutor utterance as the simulated student reads it — its last M words (M = 60). */
export function cognitiveLoadTruncate(utterance: string, m: number = COGNITIVE_LOAD_WORDS): string {
  const w = utterance.split(/\s+/).filter(Boolean);
  return w.length <= m ? w.join(' ') : w.slice(w.length - m).join(' ');
}
