import type { Topology } from '../contracts/results.js';
import { VIOLATION_CODES, type GateClass, type ViolationCode } from '../contracts/violations.js';
import type { RecordResult } from './evaluate.js';
import { QuantileSketch, type QuantileSummary } from './quantiles.js';

// Running aggregates of an audit: counters, sums and fixed-size sketches only, so memory does not grow
// with the number of plans.

/** PersonalPlan Table 4 metrics summarized over accepted plans, in table order. */
export const TOPOLOGY_METRICS = [
  'steps',
  'edges',
  'edge_density',
  'max_fan_in',
  'max_fan_out',
  'layer_width',
  'critical_path_ratio',
  'inter_agent_edge_ratio',
] as const satisfies ReadonlyArray<keyof Topology>;
export type TopologyMetric = (typeof TOPOLOGY_METRICS)[number];

/** Distinct intents kept apart; the rest are pooled, so a file with an id in `intent` cannot grow memory. */
const MAX_INTENTS = 1000;
const OTHER_INTENTS = '(other)';
const NO_INTENT = '(none)';
/** Malformed lines reported by line number; the rest are only counted. */
const MAX_MALFORMED_EXAMPLES = 10;

interface RewardSums {
  n: number;
  accepted: number;
  struct: number;
  ped: number;
  score: number;
  /** R_pers is summed over records with a profile only: without one it is not computed. */
  pers: number;
  withProfile: number;
}

const emptySums = (): RewardSums => ({ n: 0, accepted: 0, struct: 0, ped: 0, score: 0, pers: 0, withProfile: 0 });

export interface RewardMeans {
  n: number;
  accepted: number;
  acceptance_rate: number | null;
  struct: number | null;
  /** null when no record of the row had a profile. */
  pers: number | null;
  with_profile: number;
  ped: number | null;
  score: number | null;
}

interface ReasonCount<R extends string> {
  reason: R;
  count: number;
  /** count / scored records. A plan can fail for several reasons, so shares can sum past the rejected share. */
  share: number;
}

export interface AuditSummary {
  lines: { total: number; blank: number; malformed: number; scored: number };
  malformed_examples: Array<{ line: number; reason: string }>;
  gate: {
    accepted: number;
    rejected: number;
    rejected_share: number | null;
    by_reason: Array<ReasonCount<ViolationCode> & { class: GateClass | null }>;
    /** Each hard class a rejected plan has; `strict`: plans rejected only because strict mode gates every violation. */
    by_class: Array<ReasonCount<GateClass | 'strict'>>;
  };
  /** Means over every scored record: a gated plan keeps its raw rewards, an unparsed one scores 0 (as in /validate-plan). */
  rewards: RewardMeans;
  topology: { plans: number; metrics: Record<TopologyMetric, QuantileSummary> };
  /** null when no record carried an `intent`. */
  intents: Array<RewardMeans & { intent: string }> | null;
}

export class AuditAggregator {
  private total = 0;
  private blank = 0;
  private malformed = 0;
  private readonly malformedExamples: Array<{ line: number; reason: string }> = [];
  private readonly all = emptySums();
  private readonly reasons = new Map<ViolationCode, number>();
  private readonly classes = new Map<GateClass | 'strict', number>();
  private topologyPlans = 0;
  private readonly topology = new Map<TopologyMetric, QuantileSketch>(TOPOLOGY_METRICS.map((m) => [m, new QuantileSketch()]));
  private readonly intents = new Map<string, RewardSums>();
  private sawIntent = false;

  addBlank(): void {
    this.total++;
    this.blank++;
  }

  addMalformed(line: number, reason: string): void {
    this.total++;
    this.malformed++;
    if (this.malformedExamples.length < MAX_MALFORMED_EXAMPLES) this.malformedExamples.push({ line, reason });
  }

  addResult(result: RecordResult, intent: string | undefined): void {
    this.total++;
    const e = result.evaluation;
    addTo(this.all, result);
    for (const r of e.gate.reasons) this.reasons.set(r, (this.reasons.get(r) ?? 0) + 1);
    const classes: (GateClass | 'strict')[] = e.gate.failed && e.gate.classes.length === 0 ? ['strict'] : e.gate.classes;
    for (const c of classes) this.classes.set(c, (this.classes.get(c) ?? 0) + 1);
    if (!e.gate.failed && e.topology) {
      this.topologyPlans++;
      for (const m of TOPOLOGY_METRICS) {
        const v = e.topology[m];
        // layer_width and critical_path_ratio are null only for an empty or cyclic graph.
        if (v !== null) this.topology.get(m)!.add(v);
      }
    }
    if (intent !== undefined) this.sawIntent = true;
    addTo(this.intentSums(intent ?? NO_INTENT), result);
  }

  private intentSums(intent: string): RewardSums {
    let s = this.intents.get(intent);
    if (!s) {
      const key = this.intents.size < MAX_INTENTS ? intent : OTHER_INTENTS;
      s = this.intents.get(key) ?? emptySums();
      this.intents.set(key, s);
    }
    return s;
  }

  summary(): AuditSummary {
    const scored = this.all.n;
    const share = (count: number) => (scored > 0 ? count / scored : 0);
    const byCount = <T extends { count: number; reason: string }>(a: T, b: T) => b.count - a.count || a.reason.localeCompare(b.reason);
    return {
      lines: { total: this.total, blank: this.blank, malformed: this.malformed, scored },
      malformed_examples: [...this.malformedExamples],
      gate: {
        accepted: this.all.accepted,
        rejected: scored - this.all.accepted,
        rejected_share: scored > 0 ? (scored - this.all.accepted) / scored : null,
        by_reason: [...this.reasons]
          .map(([reason, count]) => ({ reason, class: VIOLATION_CODES[reason].gate as GateClass | null, count, share: share(count) }))
          .sort(byCount),
        by_class: [...this.classes].map(([reason, count]) => ({ reason, count, share: share(count) })).sort(byCount),
      },
      rewards: means(this.all),
      topology: {
        plans: this.topologyPlans,
        metrics: Object.fromEntries(TOPOLOGY_METRICS.map((m) => [m, this.topology.get(m)!.summary()])) as Record<TopologyMetric, QuantileSummary>,
      },
      intents: this.sawIntent
        ? [...this.intents].map(([intent, s]) => ({ intent, ...means(s) })).sort((a, b) => b.n - a.n || a.intent.localeCompare(b.intent))
        : null,
    };
  }
}

function addTo(s: RewardSums, r: RecordResult): void {
  const e = r.evaluation;
  s.n++;
  if (!e.gate.failed) s.accepted++;
  s.struct += e.raw.struct;
  s.ped += e.raw.ped;
  s.score += r.score;
  if (r.hasProfile) {
    s.withProfile++;
    s.pers += e.raw.pers;
  }
}

function means(s: RewardSums): RewardMeans {
  const m = (x: number, n: number) => (n > 0 ? x / n : null);
  return {
    n: s.n,
    accepted: s.accepted,
    acceptance_rate: m(s.accepted, s.n),
    struct: m(s.struct, s.n),
    pers: m(s.pers, s.withProfile),
    with_profile: s.withProfile,
    ped: m(s.ped, s.n),
    score: m(s.score, s.n),
  };
}
