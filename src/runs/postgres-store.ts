import pg from 'pg';
import type { HistoryRow } from '../contracts/runs.js';
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
  type ReadAhead,
  type ReceiptColumns,
  receiptInfo,
  storedReceipt,
  type RunColumns,
  type RunRecord,
  type RunStore,
  type RunTx,
  OutcomeUnknown,
  StateDamaged,
  StateUnusable,
  StoreUnavailable,
} from './store.js';
import { ServiceError } from '../common/errors.js';
import { StoreHealth, type StoreEvents } from './store-health.js';
import { aheadStatements, KnownState, type ValueRow } from './postgres-read-ahead.js';

const INSERT_HISTORY = `INSERT INTO history (run_id, ${HISTORY_COLUMNS.join(', ')}) VALUES (${['run_id', ...HISTORY_COLUMNS].map((_, i) => `$${i + 1}`).join(', ')})`;
const UPSERT_OPEN_STEP = `INSERT INTO open_steps (run_id, ${OPEN_STEP_COLUMNS.join(', ')})
  VALUES (${['run_id', ...OPEN_STEP_COLUMNS].map((_, i) => `$${i + 1}`).join(', ')})
  ON CONFLICT (run_id) DO UPDATE SET ${OPEN_STEP_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')}`;

// Versioned migrations, applied in order at start-up under one advisory lock, so replicas starting together
// run each exactly once. Steps are bigint (a trainer's global step may pass 2^31), read back as numbers.
const MIGRATIONS = [
  `CREATE TABLE runs (
     id text PRIMARY KEY, config text NOT NULL, weights text NOT NULL, ema text,
     last_finalized_step bigint, finalized_steps integer NOT NULL, created_at text NOT NULL, updated_at text NOT NULL);
   CREATE TABLE history (
     run_id text NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step bigint NOT NULL,
     plans integer NOT NULL, gated integer NOT NULL, requests integer NOT NULL, late_plans integer NOT NULL DEFAULT 0,
     mean_struct double precision NOT NULL, mean_pers double precision NOT NULL, mean_ped double precision NOT NULL,
     w_struct double precision NOT NULL, w_pers double precision NOT NULL, w_ped double precision NOT NULL,
     ema_struct double precision NOT NULL, ema_pers double precision NOT NULL, ema_ped double precision NOT NULL,
     wa_struct double precision NOT NULL, wa_pers double precision NOT NULL, wa_ped double precision NOT NULL,
     refreshed integer NOT NULL, finalized_at text NOT NULL,
     PRIMARY KEY (run_id, step));
   CREATE TABLE open_steps (
     run_id text PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE, step bigint NOT NULL, auto integer NOT NULL,
     weights text NOT NULL, plans integer NOT NULL, gated integer NOT NULL, requests integer NOT NULL);
   CREATE TABLE step_values (
     id bigserial PRIMARY KEY, run_id text NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step bigint NOT NULL,
     struct bytea NOT NULL, pers bytea NOT NULL, ped bytea NOT NULL);
   CREATE INDEX step_values_run ON step_values (run_id, step);
   CREATE TABLE receipts (
     id bigserial PRIMARY KEY, run_id text NOT NULL REFERENCES runs(id) ON DELETE CASCADE, key text NOT NULL,
     fingerprint text NOT NULL, info text NOT NULL, UNIQUE (run_id, key));`,
  // 2: gate reasons and group diversity per step; steps finalized before have NULL (a gap, not a zero).
  `ALTER TABLE history ADD COLUMN gate_reasons text, ADD COLUMN diversity double precision;
   ALTER TABLE open_steps ADD COLUMN gate_reasons text NOT NULL DEFAULT '{}';
   ALTER TABLE step_values ADD COLUMN diversity bytea NOT NULL DEFAULT '\\x';`,
  // 3: plans flagged by gaming signals per step; NULL in steps finalized before, and in a step open across
  // the upgrade, whose earlier plans were not counted (a gap, not a zero).
  `ALTER TABLE history ADD COLUMN flagged integer, ADD COLUMN gaming text;
   ALTER TABLE open_steps ADD COLUMN flagged integer, ADD COLUMN gaming text;`,
  // 4: each parsed plan's aboutness with the step's values, and their mean per step; NULL in steps finalized
  // before, and in the values of requests counted before (their step's mean is a gap, not a partial mean).
  `ALTER TABLE history ADD COLUMN aboutness double precision;
   ALTER TABLE step_values ADD COLUMN aboutness bytea;`,
  // 5: rate-limit counts shared by the replicas (RATE_LIMIT_MAX), one row per caller and fixed window.
  `CREATE TABLE IF NOT EXISTS rate_limits (key text PRIMARY KEY, count bigint NOT NULL, window_start timestamptz NOT NULL);`,
];

// Any 64-bit constants: the keys of the locks migrations and run creation take.
const MIGRATION_LOCK = 7_461_201_726;
const RUN_CREATION_LOCK = 7_461_201_727;
const INT8 = 20;
// bigint columns hold steps and ids, all below 2^53.
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === INT8 ? Number : pg.types.getTypeParser(oid, format)),
} as pg.CustomTypesConfig;

// SQLSTATE class 08 (connection), 53 (resources: disk full, out of memory, too many connections), 57 (operator
// intervention: shutdown, starting up; 57014, a statement past statement_timeout), 55P03 (no lock within
// lock_timeout), 25006 (a read-only transaction: a replica, or a primary after a failover turned it read-only),
// or a socket error.
const UNREACHABLE_STATE = /^(08|53|57|55P03$|25006$)|^E[A-Z]+$/;
// The driver's own words when the socket ends, never opens, or gives no answer within query_timeout; these
// errors carry no code.
const LOST_CONNECTION = /Connection terminated|timeout exceeded when trying to connect|not queryable|Query read timeout/;

const unreachable = (e: unknown): boolean => {
  if (e instanceof ServiceError) return false;
  return UNREACHABLE_STATE.test((e as { code?: string }).code ?? '') || LOST_CONNECTION.test((e as Error).message ?? '');
};

/** The driver's error as the service's, when it is one the client should see as such. */
const storeError = (e: unknown): unknown => {
  if (unreachable(e)) return new StoreUnavailable(`state database unavailable: ${(e as Error).message}`);
  const code = (e as { code?: string }).code;
  // data_corrupted, index_corrupted: the server confines them to a relation, and its operator sees them in its log.
  if (code === 'XX001' || code === 'XX002') return new StateDamaged(`the state database reports damaged data (${code}): ${(e as Error).message}`);
  return e;
};

// Errors worth waiting out at start-up: the server is down, starting or out of connections. A wrong
// password, a missing database or a newer schema are not.
const worthWaiting = (e: unknown): boolean => unreachable(e) && !/^(28|3D)/.test((e as { code?: string }).code ?? '');

/** A query's rows, on the pool or inside a transaction. */
type Rows = <R extends pg.QueryResultRow>(sql: string, params: unknown[]) => Promise<R[]>;

async function readRun(rows: Rows, id: string): Promise<RunRecord | null> {
  const [r] = await rows<RunColumns>('SELECT * FROM runs WHERE id = $1', [id]);
  return r ? runRecord(r) : null;
}

async function readOpenStep(rows: Rows, id: string): Promise<OpenStep | null> {
  const [r] = await rows<OpenStepColumns>(`SELECT ${OPEN_STEP_COLUMNS.join(', ')} FROM open_steps WHERE run_id = $1`, [id]);
  return r ? openStep(r) : null;
}

/** Applies the migrations this database lacks, once across replicas starting together (MIGRATION_LOCK). */
async function migrate(pool: pg.Pool): Promise<void> {
  const c = await pool.connect();
  // A lost connection fails the query under way; its 'error' event must not also end the process.
  const ignore = () => undefined;
  c.on('error', ignore);
  try {
    await c.query('BEGIN');
    await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await c.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await c.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
    const version = rows[0]?.v ?? 0;
    if (version > MIGRATIONS.length) throw new Error(`state database schema ${version} is newer than this service (${MIGRATIONS.length})`);
    for (let v = version; v < MIGRATIONS.length; v++) {
      await c.query(MIGRATIONS[v]!);
      await c.query('INSERT INTO schema_migrations (version) VALUES ($1)', [v + 1]);
    }
    await c.query('COMMIT');
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    c.off('error', ignore);
    c.release(true);
  }
}

/** `v` written as a SQL literal: statements sent together in one message carry their parameters so. */
function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'string') return pg.escapeLiteral(v);
  // The shortest text that reads back as the same double (PostgreSQL parses it exactly).
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (Buffer.isBuffer(v)) return `'\\x${v.toString('hex')}'::bytea`;
  throw new Error(`no SQL literal for ${typeof v} ${String(v)}`);
}

/** `sql` with its $n parameters written in as literals (the service's statements hold no $ otherwise). */
const inline = (sql: string, params: readonly unknown[]): string => sql.replace(/\$(\d+)/g, (_, n: string) => literal(params[Number(n) - 1]));

/**
 * A transaction's statements sent in as few round trips as the answers it waits for: BEGIN, the run's lock
 * and every write wait for the next statement whose rows are read, or for COMMIT, and go with it in one
 * message (the simple query protocol takes several statements, each with its own snapshot under READ
 * COMMITTED, so a read after the lock in the same message sees every commit before the lock). How many a
 * request's bookkeeping takes is counted in test/runs/postgres-round-trips.test.ts.
 */
class Batch {
  #waiting: string[] = [];
  /** Whether anything was sent: BEGIN goes with the first message. */
  begun = false;

  constructor(private readonly c: pg.PoolClient) {}

  /** A statement whose answer nobody reads: sent with the next one that is read, or with COMMIT. */
  later(sql: string, params: readonly unknown[] = []): void {
    this.#waiting.push(inline(sql, params));
  }

  /** The rows of each statement, sent with whatever waits. */
  async read<R extends pg.QueryResultRow>(statements: ReadonlyArray<readonly [string, readonly unknown[]]>): Promise<R[][]> {
    const results = await this.send(...statements.map(([sql, params]) => inline(sql, params)));
    return results.slice(results.length - statements.length).map((r) => r.rows as R[]);
  }

  readonly rows: Rows = async <R extends pg.QueryResultRow>(sql: string, params: unknown[]) => (await this.read<R>([[sql, params]]))[0]!;

  /** Whatever waits, then `texts`, in one message; every statement's result. */
  async send(...texts: string[]): Promise<pg.QueryResult[]> {
    const all = [...this.#waiting, ...texts];
    this.#waiting = [];
    this.begun = true;
    const out = (await this.c.query(all.join(';\n'))) as pg.QueryResult | pg.QueryResult[];
    return Array.isArray(out) ? out : [out];
  }
}

/**
 * Run state in PostgreSQL, shared by every replica. A run's changes hold a transaction-level advisory lock
 * on its id (`pg_advisory_xact_lock`), taken before anything is read: one run's bookkeeping is serialized
 * across all replicas, other runs never wait, and a replica that dies mid-transaction loses its connection
 * and with it the lock and the uncommitted changes. Under READ COMMITTED each statement after the lock
 * sees every earlier commit, so no serialization failures and no retries.
 */
export class PostgresRunStore implements RunStore {
  readonly engine = 'postgres';

  private readonly health: StoreHealth;

  private constructor(
    private readonly pool: pg.Pool,
    events: StoreEvents,
  ) {
    // Usable means able to commit: a server that answers but is read-only (a replica, a primary fenced after a
    // failover, default_transaction_read_only) is not.
    const ping = async () => {
      let row: { read_only: string; recovery: boolean } | undefined;
      try {
        [row] = (
          await pool.query<{ read_only: string; recovery: boolean }>(
            "SELECT current_setting('transaction_read_only') AS read_only, pg_is_in_recovery() AS recovery",
          )
        ).rows;
      } catch (e) {
        throw new Error(`state database unavailable: ${(e as Error).message}`);
      }
      if (row?.read_only === 'on' || row?.recovery)
        throw new Error(`state database unavailable: it is read-only${row.recovery ? ' (in recovery: a standby)' : ''}`);
    };
    this.health = new StoreHealth({ ping, probe: ping }, events);
    // An idle client's error (the server restarted, or ended it) must not end the process: the pool drops
    // that client and the next query connects anew.
    pool.on('error', (e) => this.health.down(`state database unavailable: ${e.message}`));
  }

  /**
   * Connects and migrates. While the server cannot be reached (down, starting up), it retries for up to
   * `waitMs`, reporting each wait, so replicas started before their database do not crash-loop.
   */
  static async open(url: string, waitMs = 0, events: StoreEvents = () => undefined, queryTimeoutMs = 5_000): Promise<PostgresRunStore> {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      // A server that accepts the connection and never answers, a statement stuck behind a lock, a network
      // that stalls without closing: each ends within queryTimeoutMs, inside the request's deadline. The
      // server ends its side too (statement_timeout, lock_timeout, and a transaction left idle).
      const pool = new pg.Pool({
        connectionString: url,
        max: 8,
        types,
        connectionTimeoutMillis: queryTimeoutMs,
        query_timeout: queryTimeoutMs,
        statement_timeout: queryTimeoutMs,
        lock_timeout: queryTimeoutMs,
        idle_in_transaction_session_timeout: 4 * queryTimeoutMs,
        keepAlive: true,
        keepAliveInitialDelayMillis: queryTimeoutMs,
      });
      // Until the store takes the pool over, an idle client's error shows as the migration's own failure.
      const ignore = () => undefined;
      pool.on('error', ignore);
      try {
        await migrate(pool);
        pool.off('error', ignore);
        return new PostgresRunStore(pool, events);
      } catch (e) {
        await pool.end().catch(() => undefined);
        // The URL is not repeated: it usually carries a password.
        const code = (e as { code?: string }).code;
        const why = `${(e as Error).message}${code && !(e as Error).message.includes(code) ? ` (${code})` : ''}`;
        const waited = Date.now() - started;
        const waiting = worthWaiting(e);
        if (!waiting || waited >= waitMs) {
          const after = waiting ? ` after waiting ${Math.round(waited / 1000)} s (STATE_WAIT_MS)` : '';
          throw new StateUnusable(`cannot use the PostgreSQL database of STATE_URL${after}: ${why}`);
        }
        const pause = Math.min(500 * 2 ** (attempt - 1), 5_000, waitMs - waited);
        events({ kind: 'waiting', reason: `the PostgreSQL database of STATE_URL cannot be reached (${why}); attempt ${attempt}, next in ${pause} ms` });
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  /** `e` as the service's error; a lost or refused connection also marks the backend down. */
  private failed(e: unknown): unknown {
    const out = storeError(e);
    if (out instanceof StoreUnavailable) this.health.down(out.message);
    return out;
  }

  async withRun<T>(runId: string, f: (tx: RunTx) => Promise<T>, ahead?: ReadAhead): Promise<T> {
    let c: pg.PoolClient;
    try {
      c = await this.pool.connect();
    } catch (e) {
      throw this.failed(e);
    }
    // A checked-out client whose socket dies emits 'error' besides failing its query; unheard, that event
    // would end the process.
    let lost: Error | undefined;
    const onLost = (e: Error) => (lost = e);
    c.on('error', onLost);
    let committing = false;
    const batch = new Batch(c);
    try {
      batch.later('BEGIN');
      batch.later('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [runId]);
      const out = await f(this.tx(batch, runId, ahead));
      committing = true;
      await batch.send('COMMIT');
      this.health.up();
      return out;
    } catch (e) {
      if (!lost && unreachable(e)) lost = e as Error;
      // Nothing was sent yet when `f` failed before its first read: there is no transaction to roll back.
      if (!lost && batch.begun) await c.query('ROLLBACK').catch((err: unknown) => (lost = err as Error));
      const out = this.failed(lost && !(e instanceof ServiceError) ? lost : e);
      // COMMIT was sent and no answer came back: the server may have applied it before the connection went.
      // (A COMMIT the server refuses, e.g. for a full disk, is rolled back: nothing was recorded.)
      if (committing && out instanceof StoreUnavailable && !(e instanceof pg.DatabaseError))
        throw new OutcomeUnknown(`the connection to the state database was lost (${(lost ?? (e as Error)).message})`);
      throw out;
    } finally {
      c.off('error', onLost);
      c.release(lost);
    }
  }

  private tx(batch: Batch, id: string, ahead: ReadAhead | undefined): RunTx {
    const one = async <R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R | undefined> => (await batch.rows<R>(sql, params))[0];
    // The open step read with the run (every change of a run reads the run first), until a write may change it.
    let open: OpenStep | null | undefined;
    // What the transaction knows without asking again, once the run is read.
    let known: KnownState | undefined;
    const saveRun = (run: RunRecord) => {
      const r = runColumns(run);
      batch.later(
        `INSERT INTO runs (id, config, weights, ema, last_finalized_step, finalized_steps, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (id) DO UPDATE SET config = excluded.config, weights = excluded.weights, ema = excluded.ema,
           last_finalized_step = excluded.last_finalized_step, finalized_steps = excluded.finalized_steps, updated_at = excluded.updated_at`,
        [r.id, r.config, r.weights, r.ema, r.last_finalized_step, r.finalized_steps, r.created_at, r.updated_at],
      );
    };
    const insertReceipt = `INSERT INTO receipts (id, run_id, key, fingerprint, info) VALUES ($1, $2, $3, $4, $5)`;
    return {
      // Replicas creating different runs at once would each count the other's absence: creation takes one
      // advisory lock for the rest of its transaction, so the count is exact against MAX_RUNS.
      countRuns: async () => {
        batch.later('SELECT pg_advisory_xact_lock($1)', [RUN_CREATION_LOCK]);
        return (await one<{ n: number }>('SELECT count(*)::int AS n FROM runs', []))!.n;
      },
      run: async () => {
        const [runs, opens, ...rest] = await batch.read<pg.QueryResultRow>([
          ['SELECT * FROM runs WHERE id = $1', [id]],
          [`SELECT ${OPEN_STEP_COLUMNS.join(', ')} FROM open_steps WHERE run_id = $1`, [id]],
          ...(ahead ? aheadStatements(id, ahead, literal).map((sql) => [sql, []] as const) : []),
        ]);
        open = opens![0] ? openStep(opens![0] as OpenStepColumns) : null;
        const [receipts = [], ids = [], values = []] = rest as [Array<ReceiptColumns & { key: string }>?, Array<{ id: number }>?, ValueRow[]?];
        known = new KnownState(open, [receipts, ids, values], ahead?.receiptKeys ?? []);
        return runs![0] ? runRecord(runs![0] as RunColumns) : null;
      },
      saveRun: async (run) => saveRun(run),
      openStep: async () => (open !== undefined ? open : readOpenStep(batch.rows, id)),
      saveOpenStep: async (step) => {
        const o = openStepColumns(step);
        batch.later(UPSERT_OPEN_STEP, [id, ...OPEN_STEP_COLUMNS.map((col) => o[col])]);
        open = step;
      },
      addValues: async (step, raws, diversities, aboutness) => {
        const v = valueColumns(raws, diversities, aboutness);
        known?.addValues(step, v);
        batch.later('INSERT INTO step_values (run_id, step, struct, pers, ped, diversity, aboutness) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
          id,
          step,
          v.struct,
          v.pers,
          v.ped,
          v.diversity,
          v.aboutness,
        ]);
      },
      values: async (step) =>
        known?.values(step) ??
        stepValues(
          await batch.rows<ValueRow>('SELECT struct, pers, ped, diversity, aboutness FROM step_values WHERE run_id = $1 AND step = $2 ORDER BY id', [id, step]),
        ),
      finalizeStep: async (run: RunRecord, row: HistoryRow) => {
        const h = historyColumns(row);
        batch.later(INSERT_HISTORY, [id, ...HISTORY_COLUMNS.map((col) => h[col])]);
        saveRun(run);
        batch.later('DELETE FROM open_steps WHERE run_id = $1', [id]);
        batch.later('DELETE FROM step_values WHERE run_id = $1', [id]);
        batch.later('DELETE FROM receipts WHERE run_id = $1 AND id <= (SELECT id FROM receipts WHERE run_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)', [
          id,
          MAX_RECEIPTS_PER_RUN,
        ]);
        known?.finalized();
        open = null;
      },
      addLatePlans: async (step, plans) => batch.later('UPDATE history SET late_plans = late_plans + $1 WHERE run_id = $2 AND step = $3', [plans, id, step]),
      weightsBefore: async (step) => {
        const r = await one<Pick<HistoryColumns, 'wa_struct' | 'wa_pers' | 'wa_ped'>>(
          'SELECT wa_struct, wa_pers, wa_ped FROM history WHERE run_id = $1 AND step < $2 ORDER BY step DESC LIMIT 1',
          [id, step],
        );
        return r ? vec(r.wa_struct, r.wa_pers, r.wa_ped) : null;
      },
      receipt: async (key) => {
        const seen = known?.receipt(key);
        if (seen !== undefined) return seen;
        const r = await one<ReceiptColumns>('SELECT id, fingerprint, info FROM receipts WHERE run_id = $1 AND key = $2', [id, key]);
        return r ? storedReceipt(r) : null;
      },
      putReceipt: async (key, receipt) => {
        const info = receiptInfo(receipt);
        const drawn = known?.receiptId();
        let stored: number;
        if (drawn !== undefined) {
          batch.later(insertReceipt, [drawn, id, key, receipt.fingerprint, info]);
          stored = drawn;
        } else
          stored = (await one<{ id: number }>('INSERT INTO receipts (run_id, key, fingerprint, info) VALUES ($1, $2, $3, $4) RETURNING id', [
            id,
            key,
            receipt.fingerprint,
            info,
          ]))!.id;
        known?.wroteReceipt(key, { id: String(stored), ...receipt });
        return String(stored);
      },
      deleteRun: async () => {
        open = undefined;
        known = undefined;
        return (await batch.rows('DELETE FROM runs WHERE id = $1 RETURNING id', [id])).length > 0;
      },
    };
  }

  private readonly query: Rows = async <R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R[]> => {
    try {
      const { rows } = await this.pool.query<R>(sql, params);
      this.health.up();
      return rows;
    } catch (e) {
      throw this.failed(e);
    }
  };

  getRun(id: string): Promise<RunRecord | null> {
    return readRun(this.query, id);
  }

  /** One more request of `key` in its fixed window of `windowMs` (a new window once it is over), as every replica counts it. */
  async countRequest(key: string, windowMs: number): Promise<{ count: number; resetInMs: number }> {
    const [r] = await this.query<{ count: string; reset_ms: number }>(
      `INSERT INTO rate_limits AS r (key, count, window_start) VALUES ($1, 1, clock_timestamp())
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN r.window_start + $2 * interval '1 millisecond' <= clock_timestamp() THEN 1 ELSE r.count + 1 END,
         window_start = CASE WHEN r.window_start + $2 * interval '1 millisecond' <= clock_timestamp() THEN clock_timestamp() ELSE r.window_start END
       RETURNING count, GREATEST(0, EXTRACT(EPOCH FROM (window_start + $2 * interval '1 millisecond' - clock_timestamp())) * 1000)::float8 AS reset_ms`,
      [key, windowMs],
    );
    return { count: Number(r!.count), resetInMs: r!.reset_ms };
  }

  openStep(id: string): Promise<OpenStep | null> {
    return readOpenStep(this.query, id);
  }

  async listRuns(after: string | null, limit: number): Promise<RunRecord[]> {
    const rows = await this.query<RunColumns>('SELECT * FROM runs WHERE id COLLATE "C" > $1 ORDER BY id COLLATE "C" LIMIT $2', [after ?? '', limit]);
    return rows.map(runRecord);
  }

  async history(runId: string, offset: number, limit: number): Promise<{ total: number; rows: HistoryRow[] }> {
    const [count] = await this.query<{ n: number }>('SELECT count(*)::int AS n FROM history WHERE run_id = $1', [runId]);
    const rows = await this.query<HistoryColumns>('SELECT * FROM history WHERE run_id = $1 ORDER BY step LIMIT $2 OFFSET $3', [runId, limit, offset]);
    return { total: count!.n, rows: rows.map(historyRow) };
  }

  /** Damage is PostgreSQL's to detect and contain: one request that meets it fails alone (StateDamaged). */
  check(): Promise<string | null> {
    return this.health.check();
  }

  async close(): Promise<void> {
    this.health.stop();
    await this.pool.end();
  }
}
