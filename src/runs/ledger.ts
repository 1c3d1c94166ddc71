import { DEFAULT_RUN_CONFIG, RunConfigSchema, type HistoryRow, type RunConfig, type RunConfigPatch, type RunView } from '../contracts/runs.js';
import { isRefreshStep, refreshWeights, updateEma } from '../grpo/adaptive-weights.js';
import { SOFT_AXES, type AxisVector } from '../grpo/compose.js';
import { orderIndependentMean } from '../grpo/stats.js';
import { jsonPath } from '../plan/violations.js';
import type { RunRecord, RunStore } from './store.js';

/** The step a run is accumulating. It lives in memory: a crash loses at most this step. */
interface OpenStep {
  step: number;
  /** Opened by step-less requests (numbered by the service). */
  auto: boolean;
  weights: AxisVector;
  values: Record<(typeof SOFT_AXES)[number], number[]>;
  plans: number;
  gated: number;
  requests: number;
}

/** Where one scoring request stands in its run, decided before it is scored. */
export interface StepTicket {
  runId: string;
  step: number;
  status: 'open' | 'late' | 'auto';
  counted: boolean;
  /** The step is not open yet: the first plans recorded for it open it (a request that fails opens nothing). */
  opens: boolean;
  weights: AxisVector;
  config: RunConfig;
  finalized: HistoryRow[];
}

export class RunNotFound extends Error {}
/** A configuration whose fields are each valid but not together (w_min > w_max, w0 summing to 0). */
export class InvalidRunConfig extends Error {
  constructor(readonly issues: { path: string; message: string }[]) {
    super(`invalid run configuration: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
  }
}

function validConfig(candidate: unknown): RunConfig {
  const parsed = RunConfigSchema.safeParse(candidate);
  if (!parsed.success) throw new InvalidRunConfig(parsed.error.issues.map((i) => ({ path: jsonPath(i.path), message: i.message })));
  return parsed.data;
}

const normalize = (w: AxisVector): AxisVector => {
  const t = w.struct + w.pers + w.ped;
  return { struct: w.struct / t, pers: w.pers / t, ped: w.ped / t };
};

/**
 * Step accounting for Reward-Adaptive GRPO (PersonalPlan §3.3, Appendix A.1): every plan of step s is
 * composed with the weights in force when s began, however the step is split over requests; step s folds
 * into the EMA exactly once, when the run first sees a later step or is told to finalize; late plans are
 * scored with their step's weights and never folded in. All methods are synchronous, so each request's
 * bookkeeping is atomic with respect to every other request.
 */
export class RunLedger {
  private readonly runs = new Map<string, RunRecord>();
  private readonly open = new Map<string, OpenStep>();

  constructor(
    private readonly store: RunStore,
    private readonly defaults: { lambda_hard: number },
    private readonly now: () => Date = () => new Date(),
  ) {}

  private load(id: string): RunRecord | null {
    let run = this.runs.get(id) ?? null;
    if (!run) {
      run = this.store.getRun(id);
      if (run) this.runs.set(id, run);
    }
    return run;
  }

  private loadOrCreate(id: string): RunRecord {
    return this.load(id) ?? this.create(id, {});
  }

  private create(id: string, patch: RunConfigPatch): RunRecord {
    const config = validConfig({ ...DEFAULT_RUN_CONFIG, lambda_hard: this.defaults.lambda_hard, ...patch });
    const at = this.now().toISOString();
    const run: RunRecord = {
      id,
      config,
      weights: normalize(config.w0),
      ema: null,
      last_finalized_step: null,
      finalized_steps: 0,
      created_at: at,
      updated_at: at,
    };
    this.store.saveRun(run);
    this.runs.set(id, run);
    return run;
  }

  /** Creates a run or changes its configuration; new values apply from the next step on. */
  configure(id: string, patch: RunConfigPatch): { run: RunView; created: boolean } {
    const existing = this.load(id);
    if (!existing) return { run: this.view(this.create(id, patch)), created: true };
    const config = validConfig({ ...existing.config, ...patch });
    const started = existing.last_finalized_step !== null || this.open.has(id);
    // Before the first step, new initial weights are the weights.
    const weights = !started && patch.w0 ? normalize(config.w0) : existing.weights;
    const run = { ...existing, config, weights, updated_at: this.now().toISOString() };
    this.store.saveRun(run);
    this.runs.set(id, run);
    return { run: this.view(run), created: false };
  }

  get(id: string): RunView | null {
    const run = this.load(id);
    return run ? this.view(run) : null;
  }

  list(): RunView[] {
    return this.store.listRuns().map((r) => this.view(this.runs.get(r.id) ?? r));
  }

  history(id: string, offset: number, limit: number): { total: number; rows: HistoryRow[] } {
    if (!this.load(id)) throw new RunNotFound(id);
    return this.store.history(id, offset, limit);
  }

  delete(id: string): boolean {
    this.runs.delete(id);
    this.open.delete(id);
    return this.store.deleteRun(id);
  }

  /** Finalizes the open step, if any (the end of training, or a trainer that wants it now). */
  finalize(id: string): HistoryRow | null {
    const run = this.load(id);
    if (!run) throw new RunNotFound(id);
    const open = this.open.get(id);
    return open ? this.finalizeOpen(run, open) : null;
  }

  /** Decides, before scoring, which step a request belongs to and the weights its plans are composed with. */
  enter(id: string, step: number | undefined): StepTicket {
    const run = this.loadOrCreate(id);
    const finalized: HistoryRow[] = [];
    let open = this.open.get(id);
    const ticket = (s: number, status: StepTicket['status'], weights: AxisVector, opens: boolean): StepTicket => ({
      runId: id,
      step: s,
      status,
      counted: status !== 'late',
      opens,
      weights,
      config: run.config,
      finalized,
    });

    if (step === undefined) {
      const sps = run.config.samples_per_step;
      if (open && open.auto && sps !== null && open.plans < sps) return ticket(open.step, 'auto', open.weights, false);
      const next = Math.max(run.last_finalized_step ?? -1, open?.step ?? -1) + 1;
      if (open) finalized.push(this.finalizeOpen(run, open));
      return ticket(next, 'auto', run.weights, true);
    }

    if (open && step === open.step) return ticket(step, 'open', open.weights, false);
    if (open && step > open.step) {
      finalized.push(this.finalizeOpen(run, open));
      open = undefined;
    }
    if (!open && (run.last_finalized_step === null || step > run.last_finalized_step)) return ticket(step, 'open', run.weights, true);
    // An earlier step: already finalized, or skipped. Weights in force when it began are those after the
    // last finalized step before it.
    return ticket(step, 'late', this.store.weightsBefore(id, step) ?? normalize(run.config.w0), false);
  }

  /**
   * Adds a scored request's plans to its step (unless late), and closes a step-less step when it is full.
   * Called synchronously right after `enter` for the same request, so the ticket still describes the run.
   */
  record(t: StepTicket, raws: readonly AxisVector[], gated: number): HistoryRow[] {
    const run = this.load(t.runId)!;
    if (!t.counted) {
      this.store.addLatePlans(t.runId, t.step, raws.length); // no row for a step that was skipped: a no-op
      return t.finalized;
    }
    const open = t.opens ? this.openStep(t.runId, t.step, t.status === 'auto', t.weights) : this.open.get(t.runId)!;
    for (const r of raws) for (const k of SOFT_AXES) open.values[k].push(r[k]);
    open.plans += raws.length;
    open.gated += gated;
    open.requests += 1;
    if (open.auto && (run.config.samples_per_step === null || open.plans >= run.config.samples_per_step)) {
      return [...t.finalized, this.finalizeOpen(run, open)];
    }
    return t.finalized;
  }

  private openStep(id: string, step: number, auto: boolean, weights: AxisVector): OpenStep {
    const open: OpenStep = { step, auto, weights, values: { struct: [], pers: [], ped: [] }, plans: 0, gated: 0, requests: 0 };
    this.open.set(id, open);
    return open;
  }

  // PersonalPlan A.1: fold the step's raw axis means into the EMA once; refresh the weights on schedule.
  private finalizeOpen(run: RunRecord, open: OpenStep): HistoryRow {
    const c = run.config;
    const mean: AxisVector = {
      struct: orderIndependentMean(open.values.struct),
      pers: orderIndependentMean(open.values.pers),
      ped: orderIndependentMean(open.values.ped),
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
    };
    this.store.finalizeStep({ ...run, weights: weightsAfter, ema, last_finalized_step: open.step, finalized_steps: run.finalized_steps + 1, updated_at: at }, row);
    // Only after the commit: a failed write leaves the step open and the run as it was.
    Object.assign(run, { weights: weightsAfter, ema, last_finalized_step: open.step, finalized_steps: run.finalized_steps + 1, updated_at: at });
    this.open.delete(run.id);
    return row;
  }

  private view(run: RunRecord): RunView {
    const open = this.open.get(run.id);
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
}
