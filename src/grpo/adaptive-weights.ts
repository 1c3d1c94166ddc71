import type { SOFT_AXES, AxisVector } from './compose.js';

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

// PersonalPlan A.1: w'_k = clip(w_k · exp(η_w · (ρ − m_k)), w_min, w_max), then w ← w' / Σ w'.
// An axis whose EMA lags the target ρ gains weight. Normalizing after clipping can leave a weight slightly
// outside [w_min, w_max]; the paper's order is kept.
export function refreshWeights(weights: AxisVector, ema: AxisVector, c: AdaptiveConfig): AxisVector {
  const clipped = perAxis((k) => Math.min(c.w_max, Math.max(c.w_min, weights[k] * Math.exp(c.eta_w * (c.rho - ema[k])))));
  const total = clipped.struct + clipped.pers + clipped.ped;
  return perAxis((k) => clipped[k] / total);
}
