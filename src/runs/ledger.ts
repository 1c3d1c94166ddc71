import { ServiceError } from '../common/errors.js';
import type { Issue } from '../contracts/errors.js';
import {
  DEFAULT_RUN_CONFIG,
  RunConfigSchema,
  type HistoryRow,
  type RunConfig,
  type RunConfigPatch,
  type RunStepInfoSchema,
  type RunView,
} from '../contracts/runs.js';
import { isRefreshStep, refreshWeights, updateEma } from '../grpo/adaptive-weights.js';
import type { AxisVector } from '../grpo/compose.js';
import { orderIndependentMean } from '../grpo/stats.js';
import { jsonPath } from '../common/json-path.js';
import { scoringDefaultsOf, type ScoreSummary, type ScoringDefaults, type Tally } from '../scoring/score-groups.js';
import type { OpenStep, ReadAhead, RunRecord, RunStore, RunTx, StoredReceipt } from './store.js';
import type { z } from 'zod';

/** Where one scoring request landed in its run: its step, the weights its plans are composed with. */
export type StepInfo = z.infer<typeof RunStepInfoSchema>;

/** What the logs and metrics say of the run a request was counted in. */
export const stepSummary = (run: StepInfo): ScoreSummary['run'] => ({
  id: run.id,
  step: run.step,
  status: run.status,
  weights: run.finalized.at(-1)?.weights_after ?? run.weights,
  ema: run.finalized.at(-1)?.ema ?? null,
});

/** What counting a request came to. */
export type Counted =
  | { kind: 'counted'; run: StepInfo; defaults: ScoringDefaults; receipt: string | undefined }
  /** Its Idempotency-Key was counted before (here or on another replica, before or after a restart). */
  | { kind: 'replay'; receipt: StoredReceipt }
  /** Its Idempotency-Key was counted before with another fingerprint, `stored`. */
  | { kind: 'conflict'; stored: string }
  /** The run's λ_hard changed after the plans were judged: judge again with these defaults and retry. */
  | { kind: 'stale'; defaults: ScoringDefaults };

/** An Idempotency receipt to look for, and to leave if none is found. */
export interface ReceiptClaim {
  key: string;
  fingerprint: string;
}

/** MAX_RUNS runs exist: a new one is refused, the existing ones keep working. */
class RunQuotaExceeded extends ServiceError {
  override name = 'RunQuotaExceeded';
  constructor(readonly maxRuns: number) {
    super('run_quota', `${maxRuns} runs exist, the most this service keeps (MAX_RUNS): delete a finished run (DELETE /runs/{id}) or raise MAX_RUNS`);
  }
}

export class RunNotFound extends ServiceError {
  override name = 'RunNotFound';
  constructor(readonly runId: string) {
    super('run_not_found', `no run "${runId}"`);
  }
}
/** A finalize that names a step other than the run's open one: a step that began since, or never did. */
class StepConflict extends ServiceError {
  override name = 'StepConflict';
  constructor(message: string) {
    super('step_conflict', message);
  }
}
/** A configuration whose fields are each valid but not together (w_min > w_max, w0 summing to 0). */
class InvalidRunConfig extends ServiceError {
  override name = 'InvalidRunConfig';
  constructor(issues: Issue[]) {
    super('invalid_request', `invalid run configuration: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  }
}

function validConfig(candidate: unknown): RunConfig {
  const parsed = RunConfigSchema.safeParse(candidate);
  if (!parsed.success) throw new InvalidRunConfig(parsed.error.issues.map((i) => ({ path: jsonPath(i.path), message: i.message })));
  return parsed.data;
}

/** A step's per-code counts so far plus a request's. */
function addCounts(sum: Readonly<Record<string, number>>, more: Readonly<Record<string, number>>): Record<string, number> {
  const out = { ...sum };
  for (const [code, n] of Object.entries(more)) out[code] = (out[code] ?? 0) + n;
  return out;
}

const normalize = (w: AxisVector): AxisVector => {
  const t = w.struct + w.pers + w.ped;
  return { struct: w.struct / t, pers: w.pers / t, ped: w.ped / t };
};

/**
 * Step accounting for Reward-Adaptive GRPO (PersonalPlan §3.3, Appendix A.1): every plan of step s is
 * composed with the weights in force when s began, however the step is split over requests; step s folds
 * into the EMA exactly once, when the run first sees a later step or is told to finalize; late plans are
 * scored with their step's weights and never folded in. Each change is one transaction of the store under
 * the run's lock, so it is exact across concurrent requests, processes and replicas, and a request that
 * was acknowledged is committed.
 */
export class RunLedger {
  constructor(
    private readonly store: RunStore,
    private readonly defaults: Pick<ScoringDefaults, 'lambda_hard' | 'reward_profile'> & { maxRuns: number },
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A new run, once the quota allows it (inside the creating transaction). */
  private async create(tx: RunTx, id: string, patch: RunConfigPatch): Promise<RunRecord> {
    if ((await tx.countRuns()) >= this.defaults.maxRuns) throw new RunQuotaExceeded(this.defaults.maxRuns);
    const run = this.newRun(id, patch);
    await tx.saveRun(run);
    return run;
  }

  private newRun(id: string, patch: RunConfigPatch): RunRecord {
    const config = validConfig({ ...DEFAULT_RUN_CONFIG, lambda_hard: this.defaults.lambda_hard, reward_profile: this.defaults.reward_profile, ...patch });
    const at = this.now().toISOString();
    return { id, config, weights: normalize(config.w0), ema: null, last_finalized_step: null, finalized_steps: 0, created_at: at, updated_at: at };
  }

  /** Creates a run or changes its configuration; new values apply from the next step on. */
  configure(id: string, patch: RunConfigPatch): Promise<{ run: RunView; created: boolean }> {
    return this.store.withRun(id, async (tx) => {
      const existing = await tx.run();
      const open = await tx.openStep();
      if (!existing) return { run: view(await this.create(tx, id, patch), open), created: true };
      const config = validConfig({ ...existing.config, ...patch });
      const started = existing.last_finalized_step !== null || open !== null;
      // Before the first step, new initial weights are the weights.
      const weights = !started && patch.w0 ? normalize(config.w0) : existing.weights;
      const run = { ...existing, config, weights, updated_at: this.now().toISOString() };
      await tx.saveRun(run);
      return { run: view(run, open), created: false };
    });
  }

  /** The run's configuration, or null before the run exists. */
  async config(id: string): Promise<RunConfig | null> {
    return (await this.store.getRun(id))?.config ?? null;
  }

  async get(id: string): Promise<RunView | null> {
    const run = await this.store.getRun(id);
    return run ? view(run, await this.store.openStep(id)) : null;
  }

  /** One page of runs in id order; `next_cursor` continues after it (null on the last page). */
  async list(cursor: string | null, limit: number): Promise<{ runs: RunView[]; next_cursor: string | null }> {
    const page = await this.store.listRuns(cursor, limit + 1);
    const runs = await Promise.all(page.slice(0, limit).map(async (r) => view(r, await this.store.openStep(r.id))));
    return { runs, next_cursor: page.length > limit ? runs.at(-1)!.id : null };
  }

  async history(id: string, offset: number, limit: number): Promise<{ total: number; rows: HistoryRow[] }> {
    if (!(await this.store.getRun(id))) throw new RunNotFound(id);
    return this.store.history(id, offset, limit);
  }

  delete(id: string): Promise<boolean> {
    return this.store.withRun(id, (tx) => tx.deleteRun());
  }

  /**
   * Finalizes the open step (the end of training, or a trainer that knows its step is complete). `step`, the
   * step the caller means to close: another open step (the next one's first request came first) is a
   * conflict; a step already finalized, or none open, is nothing to do, so a retry finalizes nothing twice.
   * Without it, whatever step is open.
   */
  finalize(id: string, step?: number): Promise<{ finalized: HistoryRow | null; run: RunView }> {
    return this.store.withRun(id, async (tx) => {
      const run = await tx.run();
      if (!run) throw new RunNotFound(id);
      const open = await tx.openStep();
      if (step !== undefined && open && open.step !== step) {
        if (run.last_finalized_step !== null && step <= run.last_finalized_step) return { finalized: null, run: view(run, open) };
        throw new StepConflict(`step ${step} is not the open step of run "${id}": step ${open.step} is`);
      }
      if (!open) return { finalized: null, run: view(run, null) };
      const { row, after } = await this.finalizeOpen(tx, run, open);
      return { finalized: row, run: view(after, null) };
    });
  }

  /**
   * Counts a scored request into its run, in one transaction: the replay check, which step it belongs to
   * and the weights that apply, the steps it finalizes, its plans, and its receipt. `judgedWith` is the
   * run defaults its plans were judged with (λ_hard, reward profile); if the run's have changed since,
   * nothing is counted ('stale').
   */
  async count(
    id: string,
    step: number | undefined,
    tally: Tally,
    judgedWith: Pick<ScoringDefaults, 'lambda_hard' | 'reward_profile'>,
    receipt?: ReceiptClaim,
  ): Promise<Counted> {
    const out = await this.countMany(id, judgedWith, [{ step, tally, receipt }]);
    return out.kind === 'stale' ? out : out.counted[0]!;
  }

  /**
   * Several requests counted in one transaction, in the order given, each exactly as `count` would have
   * counted it alone: the single-sample trainers' requests, gathered while earlier ones were being counted.
   */
  countMany(
    id: string,
    judgedWith: Pick<ScoringDefaults, 'lambda_hard' | 'reward_profile'>,
    items: ReadonlyArray<{ step: number | undefined; tally: Tally; receipt?: ReceiptClaim | undefined }>,
  ): Promise<{ kind: 'stale'; defaults: ScoringDefaults } | { kind: 'counted'; counted: Array<Exclude<Counted, { kind: 'stale' }>> }> {
    return this.store.withRun(
      id,
      async (tx) => {
        const existing = await tx.run();
        if (existing) {
          const defaults = scoringDefaultsOf(existing.config);
          if (defaults.lambda_hard !== judgedWith.lambda_hard || defaults.reward_profile !== judgedWith.reward_profile) return { kind: 'stale', defaults };
        }
        // The run and its open step are read once and kept current here as each request changes them.
        const state = { run: existing ?? (await this.create(tx, id, {})), open: await tx.openStep() };
        const counted: Array<Exclude<Counted, { kind: 'stale' }>> = [];
        for (const item of items) counted.push(await this.countIn(tx, id, state, item.step, item.tally, item.receipt));
        return { kind: 'counted', counted };
      },
      readAhead(items),
    );
  }

  private async countIn(
    tx: RunTx,
    id: string,
    state: { run: RunRecord; open: OpenStep | null },
    step: number | undefined,
    tally: Tally,
    receipt: ReceiptClaim | undefined,
  ): Promise<Exclude<Counted, { kind: 'stale' }>> {
    if (receipt) {
      const known = await tx.receipt(receipt.key);
      if (known) return known.fingerprint === receipt.fingerprint ? { kind: 'replay', receipt: known } : { kind: 'conflict', stored: known.fingerprint };
    }
    let { run, open } = state;
    const defaults = scoringDefaultsOf(run.config);
    const finalized: HistoryRow[] = [];
    const fold = async (o: OpenStep) => {
      const { row, after } = await this.finalizeOpen(tx, run, o);
      finalized.push(row);
      run = after;
      open = null;
    };

    // Which step, and whether the request joins the open one, opens a new one, or is late.
    let target: { step: number; status: StepInfo['status']; weights: AxisVector; joins: boolean };
    if (step === undefined) {
      const sps = run.config.samples_per_step;
      if (open?.auto && sps !== null && open.plans < sps) target = { step: open.step, status: 'auto', weights: open.weights, joins: true };
      else {
        const next = Math.max(run.last_finalized_step ?? -1, open?.step ?? -1) + 1;
        if (open) await fold(open);
        target = { step: next, status: 'auto', weights: run.weights, joins: false };
      }
    } else if (open && step === open.step) target = { step, status: 'open', weights: open.weights, joins: true };
    else {
      if (open && step > open.step) await fold(open);
      if (!open && (run.last_finalized_step === null || step > run.last_finalized_step)) target = { step, status: 'open', weights: run.weights, joins: false };
      // An earlier step: already finalized, or skipped. Weights in force when it began are those after the
      // last finalized step before it.
      else target = { step, status: 'late', weights: (await tx.weightsBefore(step)) ?? normalize(run.config.w0), joins: false };
    }

    if (target.status === 'late')
      await tx.addLatePlans(target.step, tally.raws.length); // a skipped step has no row: a no-op
    else {
      const current: OpenStep = target.joins
        ? open!
        : {
            step: target.step,
            auto: target.status === 'auto',
            weights: target.weights,
            plans: 0,
            gated: 0,
            requests: 0,
            gate_reasons: {},
            flagged: 0,
            gaming: {},
          };
      const grown: OpenStep = {
        ...current,
        plans: current.plans + tally.raws.length,
        gated: current.gated + tally.gated,
        requests: current.requests + 1,
        gate_reasons: addCounts(current.gate_reasons, tally.gateReasons),
        flagged: current.flagged === null ? null : current.flagged + tally.flagged,
        gaming: current.gaming === null ? null : addCounts(current.gaming, tally.gaming),
      };
      await tx.saveOpenStep(grown);
      // Aboutness is kept as values, as the raw axes are, so that its step mean is the same however the
      // step was split; a tally without it leaves the step's mean a gap.
      await tx.addValues(grown.step, tally.raws, tally.diversities, tally.aboutness ?? null);
      open = grown;
      if (grown.auto && (run.config.samples_per_step === null || grown.plans >= run.config.samples_per_step)) await fold(grown);
    }
    state.run = run;
    state.open = open;
    const info: StepInfo = { id, step: target.step, status: target.status, counted: target.status !== 'late', weights: target.weights, finalized };
    const stored = receipt ? await tx.putReceipt(receipt.key, { fingerprint: receipt.fingerprint, run: info, defaults }) : undefined;
    return { kind: 'counted', run: info, defaults, receipt: stored };
  }

  // PersonalPlan A.1: fold the step's raw axis means into the EMA once; refresh the weights on schedule.
  private async finalizeOpen(tx: RunTx, run: RunRecord, open: OpenStep): Promise<{ row: HistoryRow; after: RunRecord }> {
    const c = run.config;
    const values = await tx.values(open.step);
    const mean: AxisVector = {
      struct: orderIndependentMean(values.struct),
      pers: orderIndependentMean(values.pers),
      ped: orderIndependentMean(values.ped),
    };
    const ema = updateEma(run.ema, mean, c.alpha);
    const refreshed = isRefreshStep(open.step, c);
    const weightsAfter = refreshed ? refreshWeights(run.weights, ema, c) : run.weights;
    const at = this.now().toISOString();
    const row: HistoryRow = {
      step: open.step,
      plans: open.plans,
      gated: open.gated,
      gated_fraction: open.plans === 0 ? 0 : open.gated / open.plans,
      requests: open.requests,
      late_plans: 0,
      mean,
      weights: open.weights,
      ema,
      weights_after: weightsAfter,
      refreshed,
      finalized_at: at,
      gate_reasons: open.gate_reasons,
      diversity: values.diversity.length === 0 ? null : orderIndependentMean(values.diversity),
      flagged: open.flagged,
      gaming: open.gaming,
      aboutness: values.aboutness === null || values.aboutness.length === 0 ? null : orderIndependentMean(values.aboutness),
    };
    const after: RunRecord = { ...run, weights: weightsAfter, ema, last_finalized_step: open.step, finalized_steps: run.finalized_steps + 1, updated_at: at };
    await tx.finalizeStep(after, row);
    return { row, after };
  }
}

/** What counting `items` will read besides the run: their receipts, and the open step's values if it folds. */
function readAhead(items: ReadonlyArray<{ step: number | undefined; tally: Tally; receipt?: ReceiptClaim | undefined }>): ReadAhead {
  const claims = items.flatMap((i) => (i.receipt ? [i.receipt] : []));
  const steps = items.flatMap((i) => (i.step === undefined ? [] : [i.step]));
  const auto = items.filter((i) => i.step === undefined);
  return {
    receiptKeys: claims.map((c) => c.key),
    newReceipts: claims.length,
    lastStep: steps.length === 0 ? null : steps.reduce((a, b) => Math.max(a, b)),
    autoPlans: auto.length === 0 ? null : auto.reduce((n, i) => n + i.tally.raws.length, 0),
  };
}

function view(run: RunRecord, open: OpenStep | null): RunView {
  return {
    id: run.id,
    config: run.config,
    weights: run.weights,
    ema: run.ema,
    last_finalized_step: run.last_finalized_step,
    finalized_steps: run.finalized_steps,
    open_step: open ? { step: open.step, plans: open.plans, gated: open.gated, requests: open.requests, weights: open.weights } : null,
    created_at: run.created_at,
    updated_at: run.updated_at,
  };
}
