import { analyzePlan } from '../plan/analyze.js';
import type { ResolvedPalette } from '../plan/palette.js';
import { parsePlan, type PlanLimits } from '../plan/parse.js';
import type { Plan } from '../contracts/plan.js';
import type { Profile } from '../contracts/profile.js';
import type { Gaming, GamingSignalCode, RewardProfile } from '../contracts/gaming.js';
import type { Gate, Normalization, PedagogyReward, PersonalizationReward, ProfileSignal, StructuralReward, Topology, Violation } from '../contracts/results.js';
import type { AxisVector } from '../grpo/compose.js';
import { guardedCredit } from '../rewards/gaming/guarded.js';
import { gamingContext, readGaming, readSteps, stepCues, type GamingContext } from '../rewards/gaming/signals.js';
import { meaningContext, readPlanMeaning, type MeaningContext } from '../rewards/meaning/read.js';
import { GAMING_VERSION } from '../rewards/gaming/thresholds.js';
import { hardGate } from '../rewards/hard-gate.js';
import { pedagogyReward } from '../rewards/pedagogy/reward.js';
import { SignalCoverage } from '../rewards/personalization/reward.js';
import { profileSignals } from '../rewards/personalization/signals.js';
import { structuralReward } from '../rewards/structural.js';

/** What judging a plan depends on besides the plan: the gate and the reward profile. */
export interface GateOptions {
  strict: boolean;
  lambda_hard: number;
  reward_profile: RewardProfile;
}

/** What scoring reads of a rollout group besides its plans, built once per group. */
export interface GroupContext extends GamingContext {
  signals: ProfileSignal[];
  /** What the guarded profile reads steps against (docs/rewards.md §11), built on the group's first guarded plan. */
  meaning: () => MeaningContext;
}

/** Without a profile (validate-plan) R_pers is reported as 0 with no signals; without a query, off_topic is not judged. */
export function groupContext(query: string | null | undefined, profile: Profile | undefined, reference?: string | readonly string[]): GroupContext {
  const signals = profile === undefined ? [] : profileSignals(profile);
  const coverage = profile === undefined ? null : new SignalCoverage(signals);
  let meaning: MeaningContext | undefined;
  return {
    ...gamingContext(query, profile, coverage),
    signals,
    meaning: () => (meaning ??= meaningContext(query, profile, typeof reference === 'string' ? [reference] : reference)),
  };
}

interface Components {
  struct: StructuralReward;
  pers: PersonalizationReward | null;
  ped: PedagogyReward;
}

/** One plan judged on its own: everything except the group-relative terms. */
export interface PlanEvaluation {
  parsed: boolean;
  /** The plan as read, when it parsed. */
  plan: Plan | null;
  gate: Gate;
  /** The soft rewards of the reward profile it was judged with. */
  raw: AxisVector;
  components: Components | null;
  /** null when the plan did not parse. */
  gaming: Gaming | null;
  gaming_flags: GamingSignalCode[];
  violations: Violation[];
  normalizations: Normalization[];
  topology: Topology | null;
}

const ZERO: AxisVector = { struct: 0, pers: 0, ped: 0 };

export function evaluatePlan(completion: unknown, group: GroupContext, palette: ResolvedPalette, limits: PlanLimits, gate: GateOptions): PlanEvaluation {
  const parsed = parsePlan(completion, limits);
  if (!parsed.ok) {
    // A plan that does not parse into the schema scores 0 on every soft axis (PersonalPlan §3.3).
    return {
      parsed: false,
      plan: null,
      gate: hardGate(parsed.violations, gate.lambda_hard, gate.strict),
      raw: ZERO,
      components: null,
      gaming: null,
      gaming_flags: [],
      violations: parsed.violations,
      normalizations: parsed.normalizations,
      topology: null,
    };
  }
  const analysis = analyzePlan(parsed.plan, palette);
  const struct = structuralReward(analysis, palette);
  const pers = group.coverage ? group.coverage.score(parsed.plan) : null;
  // The gaming reading reads each step sentence by sentence; pedagogy takes the cues it found there.
  const steps = readSteps(parsed.plan, group);
  const ped = pedagogyReward(analysis, palette, stepCues(steps));
  const reading = readGaming(analysis, palette, pers, ped, group, steps);
  // The meaning reading costs a third of scoring: only the profile that pays by it takes it.
  const guarded =
    gate.reward_profile === 'guarded'
      ? guardedCredit({
          plan: parsed.plan,
          struct,
          pers,
          ped,
          reading,
          meaning: readPlanMeaning(parsed.plan, group.meaning()),
          context: group.meaning(),
          coverage: group.coverage,
          declaredEdges: analysis.dependencies.declaredEdges,
        })
      : null;
  const violations = [...analysis.violations, ...parsed.warnings];
  return {
    parsed: true,
    plan: parsed.plan,
    gate: hardGate(violations, gate.lambda_hard, gate.strict),
    raw: guarded ? guarded.raw : { struct: struct.value, pers: pers?.value ?? 0, ped: ped.value },
    components: { struct, pers, ped },
    gaming: { flagged: reading.signals.length > 0, signals: reading.signals, guarded, version: GAMING_VERSION },
    gaming_flags: reading.signals.map((s) => s.code),
    violations,
    normalizations: parsed.normalizations,
    topology: analysis.topology,
  };
}
