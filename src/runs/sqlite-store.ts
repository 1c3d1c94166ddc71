import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { HistoryRow } from '../contracts/runs.js';
import type { AxisVector } from '../grpo/compose.js';
import {
  historyColumns,
  historyRow,
  MAX_RECEIPTS_PER_RUN,
  OPEN_STEP_COLUMNS,
  openStep,
  openStepColumns,
  runColumns,
  runRecord,
  stepValues,
  valueColumns,
  vec,
  HISTORY_COLUMNS,
  type HistoryColumns,
  type OpenStep,
  type OpenStepColumns,
  type Receipt,
  type RunColumns,
  type RunRecord,
  type RunStore,
  type RunTx,
  StateDamaged,
  StateUnusable,
  type StoredReceipt,
} from './store.js';

// Versioned migrations, applied in order at start-up; user_version records how many have run.
// Doubles are REAL (IEEE-754, bit-exact) or JSON text (shortest round-trip), raw plan values float64 bytes.
const MIGRATIONS = [
  `CREATE TABLE runs (
     id TEXT PRIMARY KEY, config TEXT NOT NULL, weights TEXT NOT NULL, ema TEXT,
     last_finalized_step INTEGER, finalized_steps INTEGER NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
   CREATE TABLE history (
     run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step INTEGER NOT NULL,
     plans INTEGER NOT NULL, gated INTEGER NOT NULL, requests INTEGER NOT NULL, late_plans INTEGER NOT NULL DEFAULT 0,
     mean_struct REAL NOT NULL, mean_pers REAL NOT NULL, mean_ped REAL NOT NULL,
     w_struct REAL NOT NULL, w_pers REAL NOT NULL, w_ped REAL NOT NULL,
     ema_struct REAL NOT NULL, ema_pers REAL NOT NULL, ema_ped REAL NOT NULL,
     wa_struct REAL NOT NULL, wa_pers REAL NOT NULL, wa_ped REAL NOT NULL,
     refreshed INTEGER NOT NULL, finalized_at TEXT NOT NULL,
     PRIMARY KEY (run_id, step)) WITHOUT ROWID;`,
  // 2: the open step and Idempotency receipts, durable before a request is acknowledged.
  `CREATE TABLE open_steps (
     run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE, step INTEGER NOT NULL, auto INTEGER NOT NULL,
     weights TEXT NOT NULL, plans INTEGER NOT NULL, gated INTEGER NOT NULL, requests INTEGER NOT NULL);
   CREATE TABLE step_values (
     id INTEGER PRIMARY KEY, run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step INTEGER NOT NULL,
     struct BLOB NOT NULL, pers BLOB NOT NULL, ped BLOB NOT NULL);
   CREATE INDEX step_values_run ON step_values (run_id, step);
   CREATE TABLE receipts (
     id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, key TEXT NOT NULL,
     fingerprint TEXT NOT NULL, info TEXT NOT NULL, UNIQUE (run_id, key));`,
  // 3: gate reasons and group diversity per step; steps finalized before have NULL (a gap, not a zero).
  `ALTER TABLE history ADD COLUMN gate_reasons TEXT;
   ALTER TABLE history ADD COLUMN diversity REAL;
   ALTER TABLE open_steps ADD COLUMN gate_reasons TEXT NOT NULL DEFAULT '{}';
   ALTER TABLE step_values ADD COLUMN diversity BLOB NOT NULL DEFAULT x'';`,
  // 4: plans flagged by gaming signals per step; NULL in steps finalized before, and in a step open across
  // the upgrade, whose earlier plans were not counted (a gap, not a zero).
  `ALTER TABLE history ADD COLUMN flagged INTEGER;
   ALTER TABLE history ADD COLUMN gaming TEXT;
   ALTER TABLE open_steps ADD COLUMN flagged INTEGER;
   ALTER TABLE open_steps ADD COLUMN gaming TEXT;`,
];

/**
 * Run state in an embedded SQLite database (WAL). Every change is one `BEGIN IMMEDIATE` transaction, which
 * holds SQLite's write lock: processes sharing one STATE_DIR are serialized by the database itself and
 * read each other's commits, so they are as exact as PostgreSQL replicas.
 */
export class SqliteRunStore implements RunStore {
  readonly engine = 'sqlite';
  private readonly db: Database.Database;
  private readonly stmt;
  /** One connection: this process's transactions take turns. */
  private tail: Promise<unknown> = Promise.resolve();
  private damaged: StateDamaged | null = null;

  constructor(stateDir: string) {
    const file = join(stateDir, 'runs.sqlite');
    const unusable = (why: string) => new StateUnusable(`cannot keep run state in ${stateDir} (STATE_DIR; in the Docker image, the /data volume): ${why}`);
    try {
      mkdirSync(stateDir, { recursive: true });
      // Checked now, not at the first score: a read-only volume would otherwise pass start-up.
      accessSync(stateDir, constants.W_OK);
      if (existsSync(file)) accessSync(file, constants.W_OK);
      this.db = new Database(file, { timeout: 10_000 });
    } catch (e) {
      throw unusable(`${(e as NodeJS.ErrnoException).code ?? (e as Error).message}: it must be a writable directory`);
    }
    try {
      this.db.pragma('journal_mode = WAL');
      // WAL + NORMAL: a commit survives a killed process (the WAL is in the OS cache); only a power loss can
      // drop the last commits.
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('foreign_keys = ON');
      // Damage anywhere in the file is found here rather than by the run that happens to read it.
      const check = this.db.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new Error(`integrity check failed (${String(check).split('\n')[0]})`);
      this.migrate();
    } catch (e) {
      this.db.close();
      throw unusable(`runs.sqlite cannot be used (${(e as Error).message}); if it is damaged, restore it from a backup or move it away to start empty`);
    }
    const db = this.db;
    this.stmt = {
      getRun: db.prepare<[string], RunColumns>('SELECT * FROM runs WHERE id = ?'),
      listRuns: db.prepare<[string, number], RunColumns>('SELECT * FROM runs WHERE id > ? ORDER BY id LIMIT ?'),
      countRuns: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM runs'),
      upsertRun: db.prepare(
        `INSERT INTO runs (id, config, weights, ema, last_finalized_step, finalized_steps, created_at, updated_at)
         VALUES (@id, @config, @weights, @ema, @last_finalized_step, @finalized_steps, @created_at, @updated_at)
         ON CONFLICT(id) DO UPDATE SET config = excluded.config, weights = excluded.weights, ema = excluded.ema,
           last_finalized_step = excluded.last_finalized_step, finalized_steps = excluded.finalized_steps,
           updated_at = excluded.updated_at`,
      ),
      deleteRun: db.prepare<[string]>('DELETE FROM runs WHERE id = ?'),
      openStep: db.prepare<[string], OpenStepColumns>(`SELECT ${OPEN_STEP_COLUMNS.join(', ')} FROM open_steps WHERE run_id = ?`),
      upsertOpen: db.prepare(
        `INSERT INTO open_steps (run_id, ${OPEN_STEP_COLUMNS.join(', ')}) VALUES (@run_id, ${OPEN_STEP_COLUMNS.map((c) => `@${c}`).join(', ')})
         ON CONFLICT(run_id) DO UPDATE SET ${OPEN_STEP_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')}`,
      ),
      deleteOpen: db.prepare<[string]>('DELETE FROM open_steps WHERE run_id = ?'),
      addValues: db.prepare('INSERT INTO step_values (run_id, step, struct, pers, ped, diversity) VALUES (@run_id, @step, @struct, @pers, @ped, @diversity)'),
      values: db.prepare<[string, number], { struct: Buffer; pers: Buffer; ped: Buffer; diversity: Buffer }>(
        'SELECT struct, pers, ped, diversity FROM step_values WHERE run_id = ? AND step = ? ORDER BY id',
      ),
      deleteValues: db.prepare<[string]>('DELETE FROM step_values WHERE run_id = ?'),
      insertHistory: db.prepare(
        `INSERT INTO history (run_id, ${HISTORY_COLUMNS.join(', ')}) VALUES (@run_id, ${HISTORY_COLUMNS.map((c) => `@${c}`).join(', ')})`,
      ),
      addLate: db.prepare<[number, string, number]>('UPDATE history SET late_plans = late_plans + ? WHERE run_id = ? AND step = ?'),
      weightsBefore: db.prepare<[string, number], Pick<HistoryColumns, 'wa_struct' | 'wa_pers' | 'wa_ped'>>(
        'SELECT wa_struct, wa_pers, wa_ped FROM history WHERE run_id = ? AND step < ? ORDER BY step DESC LIMIT 1',
      ),
      history: db.prepare<[string, number, number], HistoryColumns>('SELECT * FROM history WHERE run_id = ? ORDER BY step LIMIT ? OFFSET ?'),
      historyCount: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM history WHERE run_id = ?'),
      receipt: db.prepare<[string, string], { id: number; fingerprint: string; info: string }>(
        'SELECT id, fingerprint, info FROM receipts WHERE run_id = ? AND key = ?',
      ),
      putReceipt: db.prepare<[string, string, string, string]>('INSERT INTO receipts (run_id, key, fingerprint, info) VALUES (?, ?, ?, ?)'),
      pruneReceipts: db.prepare<[string, string, number]>(
        'DELETE FROM receipts WHERE run_id = ? AND id <= (SELECT id FROM receipts WHERE run_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)',
      ),
    };
  }

  private migrate(): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const version = this.db.pragma('user_version', { simple: true }) as number;
      if (version > MIGRATIONS.length) throw new Error(`state database schema ${version} is newer than this service (${MIGRATIONS.length})`);
      for (let v = version; v < MIGRATIONS.length; v++) this.db.exec(MIGRATIONS[v]!);
      this.db.pragma(`user_version = ${MIGRATIONS.length}`);
      this.db.exec('COMMIT');
    } catch (e) {
      this.db.exec('ROLLBACK');
      throw e;
    }
  }

  damage(): string | null {
    return this.damaged?.message ?? null;
  }

  /** Runs f on the database unless it was found damaged; finding damage now stops every later use. */
  private async use<T>(f: () => T | Promise<T>): Promise<T> {
    if (this.damaged) throw this.damaged;
    try {
      return await f();
    } catch (e) {
      // SQLITE_CORRUPT and SQLITE_NOTADB (and their extended codes): pages that are not what SQLite wrote.
      if (/^SQLITE_(CORRUPT|NOTADB)/.test((e as { code?: string }).code ?? '')) {
        this.damaged ??= new StateDamaged(
          `the run state database (runs.sqlite in STATE_DIR) is damaged: ${(e as Error).message}. Nothing more is read from or written to it; ` +
            'restore it from a backup (or move it away to start empty) and restart the service',
        );
        throw this.damaged;
      }
      throw e;
    }
  }

  withRun<T>(runId: string, f: (tx: RunTx) => Promise<T>): Promise<T> {
    const result = this.tail.then(() =>
      this.use(async () => {
        this.db.exec('BEGIN IMMEDIATE');
        try {
          const out = await f(this.tx(runId));
          this.db.exec('COMMIT');
          return out;
        } catch (e) {
          if (this.db.inTransaction) this.db.exec('ROLLBACK');
          throw e;
        }
      }),
    );
    this.tail = result.catch(() => undefined);
    return result;
  }

  private tx(id: string): RunTx {
    const s = this.stmt;
    return {
      // One connection: inside the transaction, the plain reads see its writes.
      run: () => this.getRun(id),
      saveRun: async (run) => void s.upsertRun.run(runColumns(run)),
      openStep: () => this.openStep(id),
      saveOpenStep: async (open) => void s.upsertOpen.run({ run_id: id, ...openStepColumns(open) }),
      addValues: async (step, raws, diversities) => void s.addValues.run({ run_id: id, step, ...valueColumns(raws, diversities) }),
      values: async (step) => stepValues(s.values.all(id, step)),
      finalizeStep: async (run: RunRecord, row: HistoryRow) => {
        s.insertHistory.run({ run_id: id, ...historyColumns(row) });
        s.upsertRun.run(runColumns(run));
        s.deleteOpen.run(id);
        s.deleteValues.run(id);
        s.pruneReceipts.run(id, id, MAX_RECEIPTS_PER_RUN);
      },
      addLatePlans: async (step, plans) => void s.addLate.run(plans, id, step),
      // BEGIN IMMEDIATE holds the database's one write lock: no other run can be created meanwhile.
      countRuns: async () => s.countRuns.get()!.n,
      weightsBefore: async (step): Promise<AxisVector | null> => {
        const r = s.weightsBefore.get(id, step);
        return r ? vec(r.wa_struct, r.wa_pers, r.wa_ped) : null;
      },
      receipt: async (key): Promise<StoredReceipt | null> => {
        const r = s.receipt.get(id, key);
        return r ? { id: String(r.id), fingerprint: r.fingerprint, ...(JSON.parse(r.info) as Omit<Receipt, 'fingerprint'>) } : null;
      },
      putReceipt: async (key, receipt) => {
        const info = JSON.stringify({ run: receipt.run, defaults: receipt.defaults });
        return String(s.putReceipt.run(id, key, receipt.fingerprint, info).lastInsertRowid);
      },
      deleteRun: async () => s.deleteRun.run(id).changes > 0,
    };
  }

  getRun(id: string): Promise<RunRecord | null> {
    return this.use(() => {
      const r = this.stmt.getRun.get(id);
      return r ? runRecord(r) : null;
    });
  }

  openStep(id: string): Promise<OpenStep | null> {
    return this.use(() => {
      const r = this.stmt.openStep.get(id);
      return r ? openStep(r) : null;
    });
  }

  listRuns(after: string | null, limit: number): Promise<RunRecord[]> {
    return this.use(() => this.stmt.listRuns.all(after ?? '', limit).map(runRecord));
  }

  history(runId: string, offset: number, limit: number): Promise<{ total: number; rows: HistoryRow[] }> {
    return this.use(() => ({ total: this.stmt.historyCount.get(runId)!.n, rows: this.stmt.history.all(runId, limit, offset).map(historyRow) }));
  }

  async close(): Promise<void> {
    await this.tail;
    this.db.close();
  }
}
