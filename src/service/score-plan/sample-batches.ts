import { stepSummary, type ReceiptClaim, type RunLedger, type StepInfo } from '../../runs/ledger.js';
import type { RunTurns } from '../../runs/turns.js';
import { IdempotencyConflict, receiptKey } from '../../runs/idempotency.js';
import type { GateOptions } from '../../scoring/evaluate-plan.js';
import { scoringDefaultsOf, summaryOf, tallyOf, type Judged, type ScoreSummary, type ScoringDefaults } from '../../scoring/score-groups.js';
import type { PlanLimits } from '../../plan/parse.js';
import type { WorkPool } from '../pool/pool.js';
import { composeSample, type Sample } from '../../scoring/score-samples.js';
import { partCount } from './split-groups.js';

/**
 * How a request's retry is recognised. `key`: the caller's Idempotency-Key. `content`: none was sent, so the
 * key is derived from the samples themselves (see `contentClaim`).
 */
type SampleIdentity = { kind: 'key'; key: string; fingerprint: string } | { kind: 'content'; fingerprint: string };

export interface SampleRequest {
  samples: Sample[];
  step: number | undefined;
  identity: SampleIdentity;
  signal: AbortSignal;
}

export interface SampleAnswer {
  scores: Array<Judged & { reward: number; score: number }>;
  run: StepInfo;
  /** Counted before (a retry): answered again from its receipt, not counted again. */
  replay: boolean;
  summary: ScoreSummary;
}

// A key derived from content is remembered for one to two windows: OpenRLHF retries a failed request up to 5
// times, each with a 180 s timeout, so its last retry comes at most ~15 minutes after the first try.
const CONTENT_WINDOW_MS = 15 * 60_000;

/**
 * The receipt of a request without an Idempotency-Key. A retry is the same content sent again once the first
 * attempt is over, so the key is the content's fingerprint, numbered by how many requests with that content
 * are in flight in this run now: identical samples that are scored at the same time (one rollout group) are
 * told apart and each counted, while a retry — sent after its first attempt ended — takes number 1 again and
 * finds the receipt. Receipts are kept per time window and looked up in this one and the one before.
 */
function contentClaim(step: number | undefined, fingerprint: string, occurrence: number, now: number): ReceiptClaim {
  const window = Math.floor(now / CONTENT_WINDOW_MS);
  const key = (w: number) => receiptKey(step, `content:${fingerprint}@${w}#${occurrence}`);
  return { key: key(window), fingerprint, alsoUnder: [key(window - 1)] };
}

interface Pending extends SampleRequest {
  occurrence: number;
  resolve: (a: SampleAnswer) => void;
  reject: (e: unknown) => void;
}

/**
 * Single-sample requests (OpenRLHF's remote reward, verl's reward loop) of one run, gathered while earlier
 * ones are judged: each gathering is judged as one task per worker and counted in one transaction of the
 * run store, in arrival order, exactly as if its requests had been counted one by one. Thousands of
 * concurrent one-sample requests then cost a few pool tasks and transactions instead of one each, and
 * never fill the pool's queue.
 */
export class SampleBatches {
  private readonly queues = new Map<string, Pending[]>();
  /** Requests in flight per run and content fingerprint (contentClaim's numbering). */
  private readonly inFlight = new Map<string, Map<string, number>>();

  constructor(
    private readonly deps: { ledger: RunLedger; turns: RunTurns; defaults: ScoringDefaults },
    /** Judges samples with `gate`, spread over the workers as the caller sees fit. */
    private readonly judge: (samples: Sample[], gate: GateOptions) => Promise<Judged[]>,
    /** The most samples one gathering holds (MAX_PLANS_PER_REQUEST). */
    private readonly maxSamples: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Requests waiting to be gathered, all runs together. */
  get waiting(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  submit(runId: string, request: SampleRequest): Promise<SampleAnswer> {
    const counts = this.inFlight.get(runId) ?? new Map<string, number>();
    this.inFlight.set(runId, counts);
    const fp = request.identity.fingerprint;
    const occurrence = (counts.get(fp) ?? 0) + 1;
    counts.set(fp, occurrence);
    const answer = new Promise<SampleAnswer>((resolve, reject) => {
      const queue = this.queues.get(runId);
      const pending: Pending = { ...request, occurrence, resolve, reject };
      if (queue) queue.push(pending);
      else {
        this.queues.set(runId, [pending]);
        void this.pump(runId);
      }
      // Given up while still waiting to be gathered: out of the queue at once (once gathered, it is left
      // out at counting).
      if (request.signal.aborted) return;
      request.signal.addEventListener(
        'abort',
        () => {
          const waiting = this.queues.get(runId);
          const at = waiting?.indexOf(pending) ?? -1;
          if (at < 0) return;
          waiting!.splice(at, 1);
          reject(request.signal.reason);
        },
        { once: true },
      );
    });
    const settle = () => {
      const n = counts.get(fp)! - 1;
      if (n > 0) counts.set(fp, n);
      else counts.delete(fp);
      if (counts.size === 0 && this.inFlight.get(runId) === counts) this.inFlight.delete(runId);
    };
    answer.then(settle, settle);
    return answer;
  }

  /** Gathers the run's queue while the previous gathering is judged; each one counts in its own turn. */
  private async pump(runId: string): Promise<void> {
    const queue = this.queues.get(runId)!;
    while (queue.length > 0) {
      const batch: Pending[] = [];
      for (let n = 0; queue.length > 0 && (batch.length === 0 || n + queue[0]!.samples.length <= this.maxSamples); ) {
        const p = queue.shift()!;
        n += p.samples.length;
        batch.push(p);
      }
      const defaults = this.deps.ledger.config(runId).then((c) => (c ? scoringDefaultsOf(c) : this.deps.defaults));
      const judged = defaults.then((d) => this.judgeBatch(batch, d));
      judged.catch(() => undefined); // handled in the turn
      // The turn is taken now, so gatherings count in the order they formed.
      const counting = this.deps.turns.inTurn(runId, undefined, () => this.count(runId, batch, judged));
      counting.catch((e: unknown) => {
        for (const p of batch) p.reject(e);
      });
      await judged.catch(() => undefined);
    }
    this.queues.delete(runId);
  }

  private judgeBatch(batch: readonly Pending[], d: Pick<ScoringDefaults, 'lambda_hard' | 'reward_profile'>) {
    const gate = sampleGate(d);
    return this.judge(
      batch.flatMap((p) => p.samples),
      gate,
    ).then((all) => ({ gate, all }));
  }

  private async count(runId: string, batch: Pending[], judged: Promise<{ gate: GateOptions; all: Judged[] }>): Promise<void> {
    let { gate, all } = await judged;
    for (;;) {
      // A request abandoned before its turn records nothing.
      const live: Array<{ p: Pending; plans: Judged[] }> = [];
      let at = 0;
      for (const p of batch) {
        const plans = all.slice(at, at + p.samples.length);
        at += p.samples.length;
        if (p.signal.aborted) p.reject(p.signal.reason);
        else live.push({ p, plans });
      }
      if (live.length === 0) return;
      const now = this.now();
      const out = await this.deps.ledger.countMany(
        runId,
        gate,
        live.map(({ p, plans }) => ({ step: p.step, tally: tallyOf(plans, []), receipt: claimOf(p, now) })),
      );
      if (out.kind === 'stale') {
        ({ gate, all } = await this.judgeBatch(batch, out.defaults));
        continue;
      }
      out.counted.forEach((c, i) => {
        const { p, plans } = live[i]!;
        if (c.kind === 'conflict')
          p.reject(
            new IdempotencyConflict(`Idempotency-Key "${p.identity.kind === 'key' ? p.identity.key : ''}" was used for different samples in run ${runId}`),
          );
        else if (c.kind === 'replay') p.resolve(answerOf(plans, c.receipt.run, true));
        else p.resolve(answerOf(plans, c.run, false));
      });
      return;
    }
  }
}

/** How samples are gated in a run with these defaults: leniently, as a trainer's single samples are. */
export const sampleGate = (d: Pick<ScoringDefaults, 'lambda_hard' | 'reward_profile'>): GateOptions => ({
  strict: false,
  lambda_hard: d.lambda_hard,
  reward_profile: d.reward_profile,
});

function claimOf(p: Pending, now: number): ReceiptClaim {
  const id = p.identity;
  return id.kind === 'key' ? { key: receiptKey(p.step, id.key), fingerprint: id.fingerprint } : contentClaim(p.step, id.fingerprint, p.occurrence, now);
}

function answerOf(plans: Judged[], run: StepInfo, replay: boolean): SampleAnswer {
  return {
    scores: plans.map((e) => ({ ...e, ...composeSample(e, run.weights) })),
    run,
    replay,
    summary: { ...summaryOf(plans, 0), run: stepSummary(run) },
  };
}

/** Judges samples on the pool, a share per worker so that a large gathering keeps every core busy (partCount). */
export function pooledSampleJudge(pool: WorkPool, limits: PlanLimits) {
  return async (samples: Sample[], gate: GateOptions): Promise<Judged[]> => {
    const parts = partCount(samples.length, pool.workers, pool.idle());
    const size = Math.ceil(samples.length / parts);
    const signal = new AbortController().signal; // a gathering serves many requests: none of them may stop it
    const judged = await Promise.all(
      Array.from({ length: parts }, (_, k) => pool.run('evaluateSamplesTask', { samples: samples.slice(k * size, (k + 1) * size), limits, gate }, signal)),
    );
    return judged.flat();
  };
}
