import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { HistoryRow, RunConfig } from '../contracts/runs.js';
import type { AxisVector } from '../grpo/compose.js';

/** A run's durable state: everything but the step being accumulated. */
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

const SCHEMA_VERSION = 1;

// Doubles are stored as REAL (IEEE-754, bit-exact) or as JSON (shortest round-trip text), so weights read
// back after a restart are the very numbers that were written.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY,
  config TEXT NOT NULL,
  weights TEXT NOT NULL,
  ema TEXT,
  last_finalized_step INTEGER,
  finalized_steps INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS history (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step INTEGER NOT NULL,
  plans INTEGER NOT NULL,
  gated INTEGER NOT NULL,
  requests INTEGER NOT NULL,
  late_plans INTEGER NOT NULL DEFAULT 0,
  mean_struct REAL NOT NULL, mean_pers REAL NOT NULL, mean_ped REAL NOT NULL,
  w_struct REAL NOT NULL, w_pers REAL NOT NULL, w_ped REAL NOT NULL,
  ema_struct REAL NOT NULL, ema_pers REAL NOT NULL, ema_ped REAL NOT NULL,
  wa_struct REAL NOT NULL, wa_pers REAL NOT NULL, wa_ped REAL NOT NULL,
  refreshed INTEGER NOT NULL,
  finalized_at TEXT NOT NULL,
  PRIMARY KEY (run_id, step)
) WITHOUT ROWID;
`;

interface RunRow {
  id: string;
  config: string;
  weights: string;
  ema: string | null;
  last_finalized_step: number | null;
  finalized_steps: number;
  created_at: string;
  updated_at: string;
}

interface HistoryDbRow {
  step: number;
  plans: number;
  gated: number;
  requests: number;
  late_plans: number;
  mean_struct: number;
  mean_pers: number;
  mean_ped: number;
  w_struct: number;
  w_pers: number;
  w_ped: number;
  ema_struct: number;
  ema_pers: number;
  ema_ped: number;
  wa_struct: number;
  wa_pers: number;
  wa_ped: number;
  refreshed: number;
  finalized_at: string;
}

const vec = (s: number, p: number, d: number): AxisVector => ({ struct: s, pers: p, ped: d });

function toRecord(r: RunRow): RunRecord {
  return {
    id: r.id,
    config: JSON.parse(r.config) as RunConfig,
    weights: JSON.parse(r.weights) as AxisVector,
    ema: r.ema === null ? null : (JSON.parse(r.ema) as AxisVector),
    last_finalized_step: r.last_finalized_step,
    finalized_steps: r.finalized_steps,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

function toHistory(r: HistoryDbRow): HistoryRow {
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
  };
}

/** Run state in an embedded SQLite database (WAL). Every write is one transaction. */
export class RunStore {
  private readonly db: Database.Database;
  private readonly stmt;

  constructor(stateDir: string) {
    mkdirSync(stateDir, { recursive: true });
    this.db = new Database(join(stateDir, 'runs.sqlite'));
    this.db.pragma('journal_mode = WAL');
    // WAL + NORMAL: a committed step survives a killed process (the WAL is in the OS cache); only a power
    // loss can drop the last commits.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) throw new Error(`state database schema ${version} is newer than this service (${SCHEMA_VERSION})`);
    this.db.exec(SCHEMA);
    this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
    this.stmt = {
      getRun: this.db.prepare<[string], RunRow>('SELECT * FROM runs WHERE id = ?'),
      listRuns: this.db.prepare<[], RunRow>('SELECT * FROM runs ORDER BY id'),
      upsertRun: this.db.prepare(
        `INSERT INTO runs (id, config, weights, ema, last_finalized_step, finalized_steps, created_at, updated_at)
         VALUES (@id, @config, @weights, @ema, @last_finalized_step, @finalized_steps, @created_at, @updated_at)
         ON CONFLICT(id) DO UPDATE SET config = excluded.config, weights = excluded.weights, ema = excluded.ema,
           last_finalized_step = excluded.last_finalized_step, finalized_steps = excluded.finalized_steps,
           updated_at = excluded.updated_at`,
      ),
      deleteRun: this.db.prepare<[string]>('DELETE FROM runs WHERE id = ?'),
      insertHistory: this.db.prepare(
        `INSERT INTO history VALUES (@run_id, @step, @plans, @gated, @requests, @late_plans,
           @mean_struct, @mean_pers, @mean_ped, @w_struct, @w_pers, @w_ped, @ema_struct, @ema_pers, @ema_ped,
           @wa_struct, @wa_pers, @wa_ped, @refreshed, @finalized_at)`,
      ),
      addLate: this.db.prepare<[number, string, number]>('UPDATE history SET late_plans = late_plans + ? WHERE run_id = ? AND step = ?'),
      weightsBefore: this.db.prepare<[string, number], Pick<HistoryDbRow, 'wa_struct' | 'wa_pers' | 'wa_ped'>>(
        'SELECT wa_struct, wa_pers, wa_ped FROM history WHERE run_id = ? AND step < ? ORDER BY step DESC LIMIT 1',
      ),
      history: this.db.prepare<[string, number, number], HistoryDbRow>('SELECT * FROM history WHERE run_id = ? ORDER BY step LIMIT ? OFFSET ?'),
      historyCount: this.db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM history WHERE run_id = ?'),
    };
  }

  getRun(id: string): RunRecord | null {
    const row = this.stmt.getRun.get(id);
    return row ? toRecord(row) : null;
  }

  listRuns(): RunRecord[] {
    return this.stmt.listRuns.all().map(toRecord);
  }

  saveRun(run: RunRecord): void {
    this.stmt.upsertRun.run(this.runParams(run));
  }

  /** Records a finalized step and the run state after it, atomically. */
  finalizeStep(run: RunRecord, row: HistoryRow): void {
    this.db.transaction(() => {
      this.stmt.insertHistory.run({
        run_id: run.id,
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
      });
      this.stmt.upsertRun.run(this.runParams(run));
    })();
  }

  addLatePlans(runId: string, step: number, plans: number): void {
    this.stmt.addLate.run(plans, runId, step);
  }

  /** Weights in force after the last finalized step before `step`, or null if there is none. */
  weightsBefore(runId: string, step: number): AxisVector | null {
    const r = this.stmt.weightsBefore.get(runId, step);
    return r ? vec(r.wa_struct, r.wa_pers, r.wa_ped) : null;
  }

  history(runId: string, offset: number, limit: number): { total: number; rows: HistoryRow[] } {
    return { total: this.stmt.historyCount.get(runId)!.n, rows: this.stmt.history.all(runId, limit, offset).map(toHistory) };
  }

  deleteRun(id: string): boolean {
    return this.stmt.deleteRun.run(id).changes > 0;
  }

  close(): void {
    this.db.close();
  }

  private runParams(run: RunRecord) {
    return {
      id: run.id,
      config: JSON.stringify(run.config),
      weights: JSON.stringify(run.weights),
      ema: run.ema === null ? null : JSON.stringify(run.ema),
      last_finalized_step: run.last_finalized_step,
      finalized_steps: run.finalized_steps,
      created_at: run.created_at,
      updated_at: run.updated_at,
    };
  }
}
