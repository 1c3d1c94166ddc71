import { analyzePlan } from '../plan/analyze.js';
import type { ResolvedPalette } from '../plan/palette.js';
import { parsePlan, type PlanLimits } from '../plan/parse.js';
import type { Plan } from '../contracts/plan.js';
import type { Gate, Normalization, PedagogyReward, PersonalizationReward, StructuralReward, Topology, Violation } from '../contracts/results.js';
import type { AxisVector } from '../grpo/compose.js';
import { hardGate } from '../rewards/hard-gate.js';
import { pedagogyReward } from '../rewards/pedagogy/reward.js';
import type { SignalCoverage } from '../rewards/personalization/reward.js';
import { structuralReward } from '../rewards/structural.js';

export interface GateOptions {
  strict: boolean;
  lambda_hard: number;
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
  raw: AxisVector;
  components: Components | null;
  violations: Violation[];
  normalizations: Normalization[];
  topology: Topology | null;
}

const ZERO: AxisVector = { struct: 0, pers: 0, ped: 0 };

/** `coverage` is null when no profile was given (validate-plan): R_pers is then reported as 0 with no signals. */
export function evaluatePlan(
  completion: unknown,
  coverage: SignalCoverage | null,
  palette: ResolvedPalette,
  limits: PlanLimits,
  gate: GateOptions,
): PlanEvaluation {
  const parsed = parsePlan(completion, limits);
  if (!parsed.ok) {
    // A plan that does not parse into the schema scores 0 on every soft axis (PersonalPlan §3.3).
    return {
      parsed: false,
      plan: null,
      gate: hardGate(parsed.violations, gate.lambda_hard, gate.strict),
      raw: ZERO,
      components: null,
      violations: parsed.violations,
      normalizations: parsed.normalizations,
      topology: null,
    };
  }
  const analysis = analyzePlan(parsed.plan, palette);
  const struct = structuralReward(analysis, palette);
  const pers = coverage ? coverage.score(parsed.plan) : null;
  const ped = pedagogyReward(analysis, palette);
  const violations = [...analysis.violations, ...parsed.warnings];
  return {
    parsed: true,
    plan: parsed.plan,
    gate: hardGate(violations, gate.lambda_hard, gate.strict),
    raw: { struct: struct.value, pers: pers?.value ?? 0, ped: ped.value },
    components: { struct, pers, ped },
    violations,
    normalizations: parsed.normalizations,
    topology: analysis.topology,
  };
}
