import { ServiceError } from '../common/errors.js';
import type { HistoryRow, RunConfig, RunStepInfoSchema } from '../contracts/runs.js';
import { SOFT_AXES, type AxisVector } from '../grpo/compose.js';
import type { ScoringDefaults } from '../scoring/score-groups.js';
import type { z } from 'zod';

/** A run's configuration, weights and counters. */
export interface RunRecord {
  id: string;
  config: RunConfig;
  weights: AxisVector;
  ema: AxisVector | null;
  last_finalized_step: number | null;
  finalized_steps: number;
  created_at: string;
  updated_at: string;
}

/** The step a run is accumulating: its counters; its plans' raw values are kept beside it, per request. */
export interface OpenStep {
  step: number;
  /** Opened by step-less requests (numbered by the service). */
  auto: boolean;
  weights: AxisVector;
  plans: number;
  gated: number;
  requests: number;
  /** Gated plans per gate reason so far. */
  gate_reasons: Record<string, number>;
  /**
   * Plans that raised any gaming signal so far, and plans per signal; null when the step began before the
   * service counted them, so that it finalizes with a gap rather than a partial count.
   */
  flagged: number | null;
  gaming: Record<string, number> | null;
}

/**
 * A step's raw values: each plan's axis values, each group's diversity, and each parsed plan's aboutness
 * (summed in a fixed order at finalizing). `aboutness` is null when some request of the step left it
 * unrecorded (counted before the service recorded it): its mean is then a gap, not a partial mean.
 */
export type StepValues = Record<keyof AxisVector | 'diversity', number[]> & { aboutness: number[] | null };

/** What a counted request needs to be answered again byte for byte: its step's weights and options. */
export interface Receipt {
  fingerprint: string;
  run: z.infer<typeof RunStepInfoSchema>;
  defaults: ScoringDefaults;
}

/** A receipt as stored; `id` is unique across the store's life, so a reply cached under it is never stale. */
export interface StoredReceipt extends Receipt {
  id: string;
}

/** One run's state, inside a transaction that holds the run's lock. */
export interface RunTx {
  run(): Promise<RunRecord | null>;
  saveRun(run: RunRecord): Promise<void>;
  openStep(): Promise<OpenStep | null>;
  saveOpenStep(open: OpenStep): Promise<void>;
  /** One request's plans: their raw axis values, in the order given; `aboutness` null when not known. */
  addValues(step: number, raws: readonly AxisVector[], diversities: readonly number[], aboutness: readonly number[] | null): Promise<void>;
  values(step: number): Promise<StepValues>;
  /** Records a finalized step and the run after it, and drops the open step and its values. */
  finalizeStep(run: RunRecord, row: HistoryRow): Promise<void>;
  addLatePlans(step: number, plans: number): Promise<void>;
  /** Weights in force after the last finalized step before `step`, or null if there is none. */
  weightsBefore(step: number): Promise<AxisVector | null>;
  receipt(key: string): Promise<StoredReceipt | null>;
  putReceipt(key: string, receipt: Receipt): Promise<string>;
  /** Deletes the run with its history, open step and receipts. */
  deleteRun(): Promise<boolean>;
  /** How many runs exist, exactly: creating runs is serialized with this count (MAX_RUNS). */
  countRuns(): Promise<number>;
}

/**
 * What a transaction is likely to read, so that a store paying a round trip per read can read it with the
 * run. A guess only: a read it did not foresee is made when asked, and one foreseen needlessly is wasted.
 */
export interface ReadAhead {
  /** Idempotency keys it will look up. */
  receiptKeys: readonly string[];
  /** Receipts it may write. */
  newReceipts: number;
  /** The latest step its requests name: an open step before it is finalized, so its values are read. */
  lastStep: number | null;
  /** Plans of its step-less requests, if any: the open step is finalized unless they fit into it. */
  autoPlans: number | null;
}

/**
 * All run state, in one database. `withRun` is the only way to change a run: it holds the run's lock for
 * the whole transaction — across every process that shares the database — and commits only if `f`
 * resolves, so a request's bookkeeping is all there or not at all.
 */
export interface RunStore {
  readonly engine: 'sqlite' | 'postgres';
  withRun<T>(runId: string, f: (tx: RunTx) => Promise<T>, ahead?: ReadAhead): Promise<T>;
  getRun(id: string): Promise<RunRecord | null>;
  openStep(id: string): Promise<OpenStep | null>;
  /** Runs in id order after `after` (exclusive), at most `limit`. */
  listRuns(after: string | null, limit: number): Promise<RunRecord[]>;
  history(runId: string, offset: number, limit: number): Promise<{ total: number; rows: HistoryRow[] }>;
  /**
   * Why run requests cannot be served now, or null: the state was found damaged (for good, until an
   * operator restores it), or the backend is unreachable or full (until it comes back by itself). Cheap
   * enough for every readiness probe.
   */
  check(): Promise<string | null>;
  close(): Promise<void>;
  /**
   * Rate limits shared by every process on the store (PostgreSQL): one more request of `key` in its fixed
   * window. Absent on SQLite, where each process counts on its own.
   */
  countRequest?(key: string, windowMs: number): Promise<{ count: number; resetInMs: number }>;
}

/** The state database could not be reached or has no room: nothing of the request was recorded (503). */
export class StoreUnavailable extends ServiceError {
  override name = 'StoreUnavailable';
  constructor(message: string) {
    super('store_unavailable', `${message}; nothing was recorded, retry later`);
  }
}

/**
 * The connection was lost while the request's transaction was committing: the server may have committed it
 * or not, and nobody can tell the client which (503). A retry with the same Idempotency-Key is safe either way.
 */
export class OutcomeUnknown extends ServiceError {
  override name = 'OutcomeUnknown';
  constructor(message: string) {
    super(
      'outcome_unknown',
      `${message}, while the request was being committed: it may or may not have been recorded. Retry with the same Idempotency-Key: a recorded request is then recognised, not counted twice`,
    );
  }
}

/** The run state cannot be used at all (start-up): the service must not start on it. */
export class StateUnusable extends Error {
  override name = 'StateUnusable';
}

/**
 * The state database was found damaged while running (503). The store stops using it: writing into a
 * damaged file spreads the damage, and a half-read run would be scored wrongly.
 */
export class StateDamaged extends ServiceError {
  override name = 'StateDamaged';
  constructor(message: string) {
    super('state_damaged', message);
  }
}

/** Receipts kept per run (oldest dropped first): a retry older than that is rare, and counted as new. */
export const MAX_RECEIPTS_PER_RUN = 100_000;

// Raw values travel as little-endian float64 bytes: exact, compact, and the same on every replica.
function packValues(xs: readonly number[]): Buffer {
  const b = Buffer.allocUnsafe(xs.length * 8);
  xs.forEach((x, i) => {
    b.writeDoubleLE(x, i * 8);
  });
  return b;
}

function unpackValues(b: Uint8Array, into: number[]): void {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i < buf.length; i += 8) into.push(buf.readDoubleLE(i));
}

export const valueColumns = (raws: readonly AxisVector[], diversities: readonly number[], aboutness: readonly number[] | null) => ({
  struct: packValues(raws.map((r) => r.struct)),
  pers: packValues(raws.map((r) => r.pers)),
  ped: packValues(raws.map((r) => r.ped)),
  diversity: packValues(diversities),
  // NULL, as in the rows written before the column existed: unknown.
  aboutness: aboutness === null ? null : packValues(aboutness),
});

/** Every request's packed values of a step, unpacked into one list per column. */
export function stepValues(rows: Iterable<Record<Exclude<keyof StepValues, 'aboutness'>, Uint8Array> & { aboutness: Uint8Array | null }>): StepValues {
  const out: StepValues = { struct: [], pers: [], ped: [], diversity: [], aboutness: [] };
  for (const r of rows) {
    for (const k of [...SOFT_AXES, 'diversity'] as const) unpackValues(r[k], out[k]);
    if (r.aboutness === null) out.aboutness = null;
    else if (out.aboutness !== null) unpackValues(r.aboutness, out.aboutness);
  }
  return out;
}

export const vec = (s: number, p: number, d: number): AxisVector => ({ struct: s, pers: p, ped: d });

/**
 * A history row's columns, flat, in table order (after `run_id`), as both engines store them; their inserts
 * and the CSV export are written from this one list.
 */
export const HISTORY_COLUMNS = [
  'step',
  'plans',
  'gated',
  'requests',
  'late_plans',
  'mean_struct',
  'mean_pers',
  'mean_ped',
  'w_struct',
  'w_pers',
  'w_ped',
  'ema_struct',
  'ema_pers',
  'ema_ped',
  'wa_struct',
  'wa_pers',
  'wa_ped',
  'refreshed',
  'finalized_at',
  'gate_reasons',
  'diversity',
  'flagged',
  'gaming',
  'aboutness',
] as const;
export type HistoryColumns = {
  [K in (typeof HISTORY_COLUMNS)[number]]: K extends 'finalized_at'
    ? string
    : K extends 'gate_reasons' | 'gaming'
      ? string | null
      : K extends 'diversity' | 'flagged' | 'aboutness'
        ? number | null
        : number;
};

export function historyColumns(row: HistoryRow): HistoryColumns {
  return {
    step: row.step,
    plans: row.plans,
    gated: row.gated,
    requests: row.requests,
    late_plans: row.late_plans,
    mean_struct: row.mean.struct,
    mean_pers: row.mean.pers,
    mean_ped: row.mean.ped,
    w_struct: row.weights.struct,
    w_pers: row.weights.pers,
    w_ped: row.weights.ped,
    ema_struct: row.ema.struct,
    ema_pers: row.ema.pers,
    ema_ped: row.ema.ped,
    wa_struct: row.weights_after.struct,
    wa_pers: row.weights_after.pers,
    wa_ped: row.weights_after.ped,
    refreshed: row.refreshed ? 1 : 0,
    finalized_at: row.finalized_at,
    gate_reasons: row.gate_reasons === null ? null : JSON.stringify(row.gate_reasons),
    diversity: row.diversity,
    flagged: row.flagged,
    gaming: row.gaming === null ? null : JSON.stringify(row.gaming),
    aboutness: row.aboutness,
  };
}

export function historyRow(r: HistoryColumns): HistoryRow {
  return {
    step: r.step,
    plans: r.plans,
    gated: r.gated,
    gated_fraction: r.plans === 0 ? 0 : r.gated / r.plans,
    requests: r.requests,
    late_plans: r.late_plans,
    mean: vec(r.mean_struct, r.mean_pers, r.mean_ped),
    weights: vec(r.w_struct, r.w_pers, r.w_ped),
    ema: vec(r.ema_struct, r.ema_pers, r.ema_ped),
    weights_after: vec(r.wa_struct, r.wa_pers, r.wa_ped),
    refreshed: r.refreshed === 1,
    finalized_at: r.finalized_at,
    gate_reasons: r.gate_reasons === null ? null : (JSON.parse(r.gate_reasons) as Record<string, number>),
    diversity: r.diversity,
    flagged: r.flagged,
    gaming: r.gaming === null ? null : (JSON.parse(r.gaming) as Record<string, number>),
    aboutness: r.aboutness,
  };
}

/** Runs, open steps and receipts as both engines store them: numbers bit-exact, vectors as JSON text. */
export interface RunColumns {
  id: string;
  config: string;
  weights: string;
  ema: string | null;
  last_finalized_step: number | null;
  finalized_steps: number;
  created_at: string;
  updated_at: string;
}

export const runColumns = (run: RunRecord): RunColumns => ({
  id: run.id,
  config: JSON.stringify(run.config),
  weights: JSON.stringify(run.weights),
  ema: run.ema === null ? null : JSON.stringify(run.ema),
  last_finalized_step: run.last_finalized_step,
  finalized_steps: run.finalized_steps,
  created_at: run.created_at,
  updated_at: run.updated_at,
});

export const runRecord = (r: RunColumns): RunRecord => ({
  id: r.id,
  // Runs configured before reward profiles existed were scored with the paper's rewards.
  config: { reward_profile: 'paper', ...(JSON.parse(r.config) as Omit<RunConfig, 'reward_profile'>) },
  weights: JSON.parse(r.weights) as AxisVector,
  ema: r.ema === null ? null : (JSON.parse(r.ema) as AxisVector),
  last_finalized_step: r.last_finalized_step,
  finalized_steps: r.finalized_steps,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export interface OpenStepColumns {
  step: number;
  auto: number;
  weights: string;
  plans: number;
  gated: number;
  requests: number;
  gate_reasons: string;
  flagged: number | null;
  gaming: string | null;
}

/** The open_steps columns after run_id, in table order, for both engines' statements. */
export const OPEN_STEP_COLUMNS = ['step', 'auto', 'weights', 'plans', 'gated', 'requests', 'gate_reasons', 'flagged', 'gaming'] as const;

export const openStepColumns = (o: OpenStep): OpenStepColumns => ({
  ...o,
  auto: o.auto ? 1 : 0,
  weights: JSON.stringify(o.weights),
  gate_reasons: JSON.stringify(o.gate_reasons),
  gaming: o.gaming === null ? null : JSON.stringify(o.gaming),
});
export const openStep = (r: OpenStepColumns): OpenStep => ({
  step: r.step,
  auto: r.auto === 1,
  weights: JSON.parse(r.weights) as AxisVector,
  plans: r.plans,
  gated: r.gated,
  requests: r.requests,
  gate_reasons: JSON.parse(r.gate_reasons) as Record<string, number>,
  flagged: r.flagged,
  gaming: r.gaming === null ? null : (JSON.parse(r.gaming) as Record<string, number>),
});

/** A receipt's columns after run_id and key, as both engines store them: the step info and options as JSON text. */
export interface ReceiptColumns {
  id: number;
  fingerprint: string;
  info: string;
}

export const receiptInfo = (r: Receipt): string => JSON.stringify({ run: r.run, defaults: r.defaults });

export const storedReceipt = (r: ReceiptColumns): StoredReceipt => ({
  id: String(r.id),
  fingerprint: r.fingerprint,
  ...(JSON.parse(r.info) as Omit<Receipt, 'fingerprint'>),
});
