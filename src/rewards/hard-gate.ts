import { VIOLATION_CODES, type GateClass, type ViolationCode } from '../contracts/violations.js';
import type { Gate, Violation } from '../contracts/results.js';

// PersonalPlan §3.3: R_hard = −λ_hard · 𝟙[schema invalid ∨ cycle ∨ invalid tool call]
// `strict` turns every violation into a gating one (MAP-PPL admission).
export function hardGate(violations: readonly Violation[], lambdaHard: number, strict: boolean): Gate {
  const reasons: ViolationCode[] = [];
  const classes: GateClass[] = [];
  for (const v of violations) {
    const cls = VIOLATION_CODES[v.code].gate;
    if (cls === null && !strict) continue;
    if (!reasons.includes(v.code)) reasons.push(v.code);
    if (cls !== null && !classes.includes(cls)) classes.push(cls);
  }
  const failed = reasons.length > 0;
  return { failed, reasons, classes, penalty: failed ? -lambdaHard : 0 };
}
