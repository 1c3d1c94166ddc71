import { mean, std } from './stats.js';

export const SOFT_AXES = ['struct', 'pers', 'ped'] as const;
type Axis = (typeof SOFT_AXES)[number];
export type AxisVector = Record<Axis, number>;

export const INITIAL_WEIGHTS: AxisVector = { struct: 1 / 3, pers: 1 / 3, ped: 1 / 3 };

export interface CompositionOptions {
  epsilon: number;
  tau: number;
  ddof: 0 | 1;
}

export interface GroupMember {
  raw: AxisVector;
  hard: number;
}

interface ComposedMember {
  z: AxisVector;
  reward: number;
  advantage: number;
}

export interface GroupComposition {
  members: ComposedMember[];
  axis_mean: AxisVector;
  axis_std: AxisVector;
  reward_mean: number;
  reward_std: number;
}

/** Σ_k w_k x_k over the soft axes. */
export function weightedSum(x: AxisVector, weights: AxisVector): number {
  return SOFT_AXES.reduce((s, k) => s + weights[k] * x[k], 0);
}

const perAxis = (f: (axis: Axis) => number): AxisVector => ({ struct: f('struct'), pers: f('pers'), ped: f('ped') });

/** Reward-Adaptive GRPO composition within one rollout group (PersonalPlan §3.3, Appendix A.1). */
export function composeGroup(members: readonly GroupMember[], weights: AxisVector, o: CompositionOptions): GroupComposition {
  const axisMean = perAxis((k) => mean(members.map((m) => m.raw[k])));
  const axisStd = perAxis((k) =>
    std(
      members.map((m) => m.raw[k]),
      o.ddof,
    ),
  );

  // z_ik = (R_ik − μ_g) / (σ_g + ε), and z_ik = 0 when σ_g < τ (a flat axis carries no signal).
  const z = members.map((m) => perAxis((k) => (axisStd[k] < o.tau ? 0 : (m.raw[k] - axisMean[k]) / (axisStd[k] + o.epsilon))));
  // R_i = Σ_k w_k z_ik + R_hard_i
  const rewards = members.map((m, i) => weightedSum(z[i]!, weights) + m.hard);
  // A_i = (R_i − μ_R) / (σ_R + ε)
  const rMean = mean(rewards);
  const rStd = std(rewards, o.ddof);
  return {
    members: members.map((_, i) => ({ z: z[i]!, reward: rewards[i]!, advantage: (rewards[i]! - rMean) / (rStd + o.epsilon) })),
    axis_mean: axisMean,
    axis_std: axisStd,
    reward_mean: rMean,
    reward_std: rStd,
  };
}

/** score_i ∈ [0,1]: 0 when gated, else Σ_k w_k R_ik — an absolute figure for logging and filtering. */
export function absoluteScore(raw: AxisVector, gated: boolean, weights: AxisVector): number {
  return gated ? 0 : weightedSum(raw, weights);
}
