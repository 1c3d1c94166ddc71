import { stepSummary, type RunLedger, type StepInfo } from '../../runs/ledger.js';
import type { RunTurns } from '../../runs/turns.js';
import { IdempotencyConflict, receiptKey } from '../../runs/idempotency.js';
import type { GateOptions } from '../../scoring/evaluate-plan.js';
import { scoringDefaultsOf, summaryOf, tallyOf, type Judged, type ScoreSummary, type ScoringDefaults } from '../../scoring/score-groups.js';
import type { PlanLimits } from '../../plan/parse.js';
import type { WorkPool } from '../pool/pool.js';
import { composeSample, type Sample } from '../../scoring/score-samples.js';
import { partCount } from './split-groups.js';

/**
 * How a request's retry is recognised: by the caller's Idempotency-Key (with the fingerprint that tells a
 * retry from a reuse of the key), and only by it. Without one every request counts: identical completions are
 * distinct samples (a GRPO policy whose entropy has dropped sends many), never taken for a retry.
 */
interface SampleIdentity {
  key: string;
  fingerprint: string;
}

export interface SampleRequest {
  samples: Sample[];
  step: number | undefined;
  identity: SampleIdentity | undefined;
  signal: AbortSignal;
}

export interface SampleAnswer {
  scores: Array<Judged & { reward: number; score: number }>;
  run: StepInfo;
  /** Counted before (a retry): answered again from its receipt, not counted again. */
  replay: boolean;
  summary: ScoreSummary;
}

interface Pending extends SampleRequest {
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

  constructor(
    private readonly deps: { ledger: RunLedger; turns: RunTurns; defaults: ScoringDefaults },
    /** Judges samples with `gate`, spread over the workers as the caller sees fit. */
    private readonly judge: (samples: Sample[], gate: GateOptions) => Promise<Judged[]>,
    /** The most samples one gathering holds (MAX_PLANS_PER_REQUEST). */
    private readonly maxSamples: number,
  ) {}

  /** Requests waiting to be gathered, all runs together. */
  get waiting(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  submit(runId: string, request: SampleRequest): Promise<SampleAnswer> {
    return new Promise<SampleAnswer>((resolve, reject) => {
      const queue = this.queues.get(runId);
      const pending: Pending = { ...request, resolve, reject };
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
      const out = await this.deps.ledger.countMany(
        runId,
        gate,
        live.map(({ p, plans }) => ({
          step: p.step,
          tally: tallyOf(plans, []),
          receipt: p.identity && { key: receiptKey(p.step, p.identity.key), fingerprint: p.identity.fingerprint },
        })),
      );
      if (out.kind === 'stale') {
        ({ gate, all } = await this.judgeBatch(batch, out.defaults));
        continue;
      }
      out.counted.forEach((c, i) => {
        const { p, plans } = live[i]!;
        if (c.kind === 'conflict')
          p.reject(new IdempotencyConflict(`Idempotency-Key "${p.identity?.key ?? ''}" was used for different samples in run ${runId}`));
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
