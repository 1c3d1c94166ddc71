// Which score and which calibration of `reveals_answer` a request gets. The dimension layers were calibrated on MRBench's math;
// on code their probabilities mean something else (issue 75: ECE 0.27 before), so a model may carry a
// scaling fit on code, one for tasks that give the reference and one for tasks known only from the student's code.
import type { DialogueTurn, VerifyTask } from '../contracts/verify-turn.js';

export type CodeDomain = 'with_reference' | 'student_code_only';

/** A code task: it gives `reference_code`, or the student has shown code in a fenced block. */
export function codeDomain(task: VerifyTask, context: readonly DialogueTurn[]): CodeDomain | null {
  if (task.reference_code) return 'with_reference';
  return context.some((t) => t.role === 'student' && t.text.includes('```')) ? 'student_code_only' : null;
}

/** Platt scaling of a probability: σ(a·logit(p) + c). */
export function rescaled(p: number, { a, c }: { a: number; c: number }): number {
  const q = Math.min(1 - 1e-7, Math.max(1e-7, p));
  return 1 / (1 + Math.exp(-(a * Math.log(q / (1 - q)) + c)));
}
