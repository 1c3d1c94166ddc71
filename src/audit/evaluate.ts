import { LRUCache } from 'lru-cache';
import type { Profile } from '../contracts/profile.js';
import { absoluteScore, INITIAL_WEIGHTS } from '../grpo/compose.js';
import type { ResolvedPalette } from '../plan/palette.js';
import type { PlanLimits } from '../plan/parse.js';
import { evaluatePlan, groupContext, type GateOptions, type GroupContext, type PlanEvaluation } from '../scoring/evaluate-plan.js';
import type { AuditRecord } from './record.js';

export interface RecordResult {
  evaluation: PlanEvaluation;
  /** validate-plan's `score`: 0 if gated, else the initial-weight sum of the raw rewards. */
  score: number;
  hasProfile: boolean;
}

/**
 * Scores records the way POST /validate-plan does (same evaluatePlan, same score), but resolves the palette
 * once and compiles each distinct profile's signals once: audit files repeat a few profiles many times.
 */
export class RecordEvaluator {
  // Keyed by the query and profile's JSON text; bounded so a file of all-distinct ones cannot grow it.
  private readonly contexts = new LRUCache<string, GroupContext>({ max: 64 });

  constructor(
    readonly palette: ResolvedPalette,
    readonly limits: PlanLimits,
    readonly gate: GateOptions,
  ) {}

  evaluate(record: AuditRecord): RecordResult {
    const evaluation = evaluatePlan(record.completion, this.contextOf(record.query, record.profile), this.palette, this.limits, this.gate);
    return {
      evaluation,
      score: absoluteScore(evaluation.raw, evaluation.gate.failed, INITIAL_WEIGHTS),
      hasProfile: record.profile !== undefined,
    };
  }

  private contextOf(query: string | undefined, profile: Profile | undefined): GroupContext {
    const key = JSON.stringify([query ?? null, profile ?? null]); // a free-text profile becomes a quoted string: no clash with an object
    let c = this.contexts.get(key);
    if (!c) {
      c = groupContext(query, profile);
      this.contexts.set(key, c);
    }
    return c;
  }
}
