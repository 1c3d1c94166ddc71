import { LRUCache } from 'lru-cache';
import type { Profile } from '../contracts/profile.js';
import { absoluteScore, INITIAL_WEIGHTS } from '../grpo/compose.js';
import type { ResolvedPalette } from '../plan/palette.js';
import type { PlanLimits } from '../plan/parse.js';
import { SignalCoverage } from '../rewards/personalization/reward.js';
import { profileSignals } from '../rewards/personalization/signals.js';
import { evaluatePlan, type GateOptions, type PlanEvaluation } from '../scoring/evaluate-plan.js';
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
  // Keyed by the profile's JSON text; bounded so a file of all-distinct profiles cannot grow it.
  private readonly coverage = new LRUCache<string, SignalCoverage>({ max: 512 });

  constructor(
    readonly palette: ResolvedPalette,
    readonly limits: PlanLimits,
    readonly gate: GateOptions,
  ) {}

  evaluate(record: AuditRecord): RecordResult {
    const coverage = record.profile === undefined ? null : this.coverageOf(record.profile);
    const evaluation = evaluatePlan(record.completion, coverage, this.palette, this.limits, this.gate);
    return {
      evaluation,
      score: absoluteScore(evaluation.raw, evaluation.gate.failed, INITIAL_WEIGHTS),
      hasProfile: coverage !== null,
    };
  }

  private coverageOf(profile: Profile): SignalCoverage {
    const key = JSON.stringify(profile); // a free-text profile becomes a quoted string: no clash with an object
    let c = this.coverage.get(key);
    if (!c) {
      c = new SignalCoverage(profileSignals(profile));
      this.coverage.set(key, c);
    }
    return c;
  }
}
