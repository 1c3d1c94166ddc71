import type { Violation } from '../contracts/results.js';
import { PlanSchema, type Plan } from '../contracts/plan.js';
import { extractPlanObject } from './extract.js';
import type { Normalization } from '../contracts/results.js';
import { normalizePlan } from './normalize.js';
import { jsonPath } from '../common/json-path.js';
import { unknownFields } from './unknown-fields.js';
import { violation } from './violations.js';

export interface PlanLimits {
  maxCompletionBytes: number;
  maxStepsPerPlan: number;
}

/** The bounds MAX_COMPLETION_BYTES and MAX_STEPS_PER_PLAN default to. */
export const DEFAULT_PLAN_LIMITS: Readonly<PlanLimits> = Object.freeze({ maxCompletionBytes: 256 * 1024, maxStepsPerPlan: 1000 });

export type ParseOutcome =
  /** `warnings`: what the plan says that the schema ignored (unknown fields). */
  { ok: true; plan: Plan; normalizations: Normalization[]; warnings: Violation[] } | { ok: false; violations: Violation[]; normalizations: Normalization[] };

const MAX_SCHEMA_ISSUES = 20;

function fail(violations: Violation[], normalizations: Normalization[] = []): ParseOutcome {
  return { ok: false, violations, normalizations };
}

/** Completion text or object → canonical plan, or the gating reason. Never throws on any input. */
export function parsePlan(completion: unknown, limits: PlanLimits): ParseOutcome {
  if (typeof completion === 'string' && completion.length > limits.maxCompletionBytes / 3) {
    const bytes = Buffer.byteLength(completion, 'utf8');
    if (bytes > limits.maxCompletionBytes) {
      return fail([violation('plan_too_large', '$', `completion is ${bytes} bytes, over the ${limits.maxCompletionBytes}-byte limit`)]);
    }
  }
  const extracted = extractPlanObject(completion);
  if (!extracted.ok) return fail([violation('parse_error', '$', extracted.reason)]);

  const { plan: normalized, normalizations } = normalizePlan(extracted.value);
  const steps = normalized.steps;
  if (Array.isArray(steps) && steps.length > limits.maxStepsPerPlan) {
    return fail([violation('plan_too_large', '$.steps', `plan has ${steps.length} steps, over the ${limits.maxStepsPerPlan}-step limit`)], normalizations);
  }

  const parsed = PlanSchema.safeParse(normalized);
  if (!parsed.success) {
    const issues = parsed.error.issues;
    const vs = issues.slice(0, MAX_SCHEMA_ISSUES).map((i) => violation('schema_invalid', jsonPath(i.path), i.message));
    if (issues.length > MAX_SCHEMA_ISSUES) {
      vs.push(violation('schema_invalid', '$', `${issues.length - MAX_SCHEMA_ISSUES} further schema issues not listed`));
    }
    return fail(vs, normalizations);
  }
  return { ok: true, plan: parsed.data, normalizations, warnings: unknownFields(normalized) };
}
