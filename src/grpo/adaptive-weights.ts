import { SOFT_AXES, type AxisVector } from './compose.js';

/** Reward-Adaptive GRPO hyperparameters (PersonalPlan §3.3, Appendix A.1). */
export interface AdaptiveConfig {
  alpha: number;
  t_warm: number;
  t_refresh: number;
  rho: number;
  eta_w: number;
  w_min: number;
  w_max: number;
}

const perAxis = (f: (k: (typeof SOFT_AXES)[number]) => number): AxisVector => ({ struct: f('struct'), pers: f('pers'), ped: f('ped') });

// PersonalPlan A.1, EMA of each axis's raw batch mean: m_k ← (1 − α)·m_k + α·mean_k.
// The paper leaves m_k's start open; it is initialized with the first finalized step's mean (docs/rewards.md §6).
export function updateEma(previous: AxisVector | null, stepMean: AxisVector, alpha: number): AxisVector {
  if (previous === null) return { ...stepMean };
  return perAxis((k) => (1 - alpha) * previous[k] + alpha * stepMean[k]);
}

/** After step s is finalized, the weights refresh when s ≥ T_warm and (s − T_warm) mod T_refresh = 0. */
export function isRefreshStep(step: number, c: Pick<AdaptiveConfig, 't_warm' | 't_refresh'>): boolean {
  return step >= c.t_warm && (step - c.t_warm) % c.t_refresh === 0;
}

/**
 * The Euclidean projection of v onto the capped simplex {w : Σ_k w_k = 1, lo ≤ w_k ≤ hi}, which must be
 * non-empty (n·lo ≤ 1 ≤ n·hi): w_k = clip(v_k − τ, lo, hi) with the one shift τ at which the weights sum to
 * 1. That sum falls piecewise linearly as τ grows, bending where some v_k − τ meets a bound; τ lies between
 * two consecutive bends, where the sum is linear, and is solved there exactly.
 */
export function projectCappedSimplex(v: readonly number[], lo: number, hi: number): number[] {
  const at = (tau: number) => v.map((x) => Math.min(hi, Math.max(lo, x - tau)));
  const total = (tau: number) => at(tau).reduce((a, b) => a + b, 0);
  // total(first bend) = n·hi ≥ 1 ≥ n·lo = total(last bend).
  const bends = v.flatMap((x) => [x - hi, x - lo]).sort((a, b) => a - b);
  const j = bends.findIndex((b) => total(b) <= 1);
  // n·hi = 1 or n·lo = 1: the set is one point, every weight at that bound.
  if (j === 0) return v.map(() => hi);
  if (j === -1) return v.map(() => lo);
  const a = bends[j - 1]!;
  const b = bends[j]!;
  const ta = total(a);
  return at(a + ((ta - 1) / (ta - total(b))) * (b - a));
}

// PersonalPlan Appendix A.1, the weight refresh: w'_k = clip(w_k · exp(η_w · (ρ − m_k)), w_min, w_max), then
// w ← w' / Σ w'. An axis whose EMA lags the target ρ gains weight. Normalizing after clipping moves a
// clipped weight off its bound again (0.7 becomes 0.875 beside two weights at 0.05), so the paper's order
// would make the bounds meaningless; this service reads them as bounds on the weights in force:
//     u_k = w_k · exp(η_w · (ρ − m_k)),   w ← Π(u / Σ u),
// Π the Euclidean projection onto {w : Σ w = 1, w_min ≤ w_k ≤ w_max}, so that u / Σ u is kept whenever it is
// inside the bounds (docs/rewards.md §6). The run configuration keeps the set non-empty; a run stored before
// that check may have 3·w_min > 1 or 3·w_max < 1, and its bounds then widen to 1/3, the nearest that holds.
export function refreshWeights(weights: AxisVector, ema: AxisVector, c: AdaptiveConfig): AxisVector {
  const stepped = perAxis((k) => weights[k] * Math.exp(c.eta_w * (c.rho - ema[k])));
  const total = stepped.struct + stepped.pers + stepped.ped;
  const normalized = perAxis((k) => stepped[k] / total);
  const even = 1 / SOFT_AXES.length;
  const lo = Math.min(c.w_min, even);
  const hi = Math.max(c.w_max, even);
  // No bound binds: u / Σ u itself, as the paper has it.
  if (SOFT_AXES.every((k) => normalized[k] >= lo && normalized[k] <= hi)) return normalized;
  const projected = projectCappedSimplex(
    SOFT_AXES.map((k) => normalized[k]),
    lo,
    hi,
  );
  return perAxis((k) => projected[SOFT_AXES.indexOf(k)]!);
}
