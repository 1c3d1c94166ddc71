import {
  accessSync,
  type Stats,
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  statfsSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
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
  type ReceiptColumns,
  receiptInfo,
  storedReceipt,
  type RunColumns,
  type RunRecord,
  type RunStore,
  type RunTx,
  StateDamaged,
  StateUnusable,
  StoreUnavailable,
  type StoredReceipt,
} from './store.js';
import { StoreHealth, type StoreEvents } from './store-health.js';

const require = createRequire(import.meta.url);

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
  // 5: each parsed plan's aboutness with the step's values, and their mean per step; NULL in steps finalized
  // before, and in the values of requests counted before (their step's mean is a gap, not a partial mean).
  `ALTER TABLE history ADD COLUMN aboutness REAL;
   ALTER TABLE step_values ADD COLUMN aboutness BLOB;`,
];

// The first 16 bytes of every SQLite 3 database file.
const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
// Room the probe of a full disk asks for before the store is used again.
const PROBE_BYTES = 1 << 20;

const sqliteCode = (e: unknown): string => (e as { code?: string }).code ?? '';

export interface SqliteStoreOptions {
  /**
   * STATE_FRESH_IF_UNUSABLE: a runs.sqlite that cannot be used (empty, another program's, damaged) is moved
   * aside and a fresh state started, instead of refusing to start.
   */
  freshIfUnusable?: boolean;
  events?: StoreEvents;
  /**
   * STATE_CHECK_INTERVAL_MS: how often SQLite's quick_check reads every page of the file, on a thread of its
   * own, for damage inside it (bytes changed under a sound header); 0 or unset: never.
   */
  checkIntervalMs?: number;
}

// quick_check on a read-only connection of its own, in a worker thread: it reads every page, which for a large
// file is long, and the event loop must not wait for it. Its own words for what it found, or 'ok'.
const QUICK_CHECK = `
const { parentPort, workerData } = require('node:worker_threads');
let found;
try {
  const db = new (require(workerData.module))(workerData.file, { readonly: true, fileMustExist: true });
  found = db.pragma('quick_check').map((row) => row.quick_check);
  db.close();
} catch (e) {
  found = [(e.code ? e.code + ': ' : '') + e.message];
}
parentPort.postMessage(found);
`;

/**
 * Why SQLite's driver could not be loaded, or null when the error is not that: better-sqlite3's native
 * module loads at the first database opened, and one built by `npm ci` under another Node.js fails to load
 * (ERR_DLOPEN_FAILED: "compiled against a different Node.js version using NODE_MODULE_VERSION …", then
 * "Module did not self-register"). The file is not at fault (issue 78: its advice once moved an intact one aside).
 */
export function driverProblem(e: unknown, nodedir: string | null = process.env.npm_config_nodedir ?? null): string | null {
  const { code, message } = e as { code?: string; message?: string };
  if (code !== 'ERR_DLOPEN_FAILED' && !/NODE_MODULE_VERSION|did not self-register/.test(message ?? '')) return null;
  // npm builds native modules against the headers `nodedir` names (npm run passes it on): another Node's
  // headers there give the same failure after every `npm ci`.
  const home = dirname(dirname(process.execPath));
  const install =
    nodedir && resolve(nodedir) !== home
      ? `npm's nodedir is ${nodedir}, another Node's headers: run \`npm_config_nodedir=${home} npm ci\``
      : `run \`npm ci\` with this Node (or \`npm rebuild better-sqlite3\`; if npm's nodedir names another Node's headers, \`npm_config_nodedir=${home} npm ci\`)`;
  return (
    `SQLite's driver (better-sqlite3) was built for another Node.js than this one (${process.version}): ${install}; ` +
    `runs.sqlite is not at fault and was left as it is (${String(message).split('\n').join(' ')})`
  );
}

/** What SQLite's quick_check found (its rows, or the error that stopped it), or null when it found the file sound. */
const damageFound = (found: readonly string[]): string | null => (found.length === 1 && found[0] === 'ok' ? null : found.slice(0, 3).join('; '));

/** Why a file at the state path is not a state this service can open, or null. */
function unusableFile(file: string): string | null {
  if (!existsSync(file)) return null;
  // A failed restore or copy leaves exactly this; SQLite would silently start an empty database in it.
  if (statSync(file).size === 0) return 'runs.sqlite is empty (0 bytes), as a failed restore or copy leaves it';
  return null;
}

/**
 * Run state in an embedded SQLite database (WAL). Every change is one `BEGIN IMMEDIATE` transaction, which
 * holds SQLite's write lock: processes sharing one STATE_DIR are serialized by the database itself and
 * read each other's commits, so they are as exact as PostgreSQL replicas.
 */
export class SqliteRunStore implements RunStore {
  readonly engine = 'sqlite';
  private readonly db: Database.Database;
  private readonly stmt;
  private readonly file: string;
  /** The file opened, read again on each use: SQLite's page cache would hide a change made under it. */
  private readonly fd: number;
  private readonly identity: { dev: number; ino: number; size: number; pageSize: number };
  /** One connection: this process's transactions take turns. */
  private tail: Promise<unknown> = Promise.resolve();
  private damaged: StateDamaged | null = null;
  /** A write failed (full disk, I/O error): every page is read again before the next use. */
  private suspect = false;
  private readonly events: StoreEvents;
  private readonly health: StoreHealth;
  private readonly checker: NodeJS.Timeout | null = null;
  private checking = false;

  constructor(
    private readonly stateDir: string,
    options: SqliteStoreOptions = {},
  ) {
    const events = options.events ?? (() => undefined);
    this.events = events;
    this.file = join(stateDir, 'runs.sqlite');
    const unusable = (why: string) => new StateUnusable(`cannot keep run state in ${stateDir} (STATE_DIR; in the Docker image, the /data volume): ${why}`);
    try {
      mkdirSync(stateDir, { recursive: true });
      // Checked now, not at the first score: a read-only volume would otherwise pass start-up.
      accessSync(stateDir, constants.W_OK);
      if (existsSync(this.file)) accessSync(this.file, constants.W_OK);
    } catch (e) {
      throw unusable(`${(e as NodeJS.ErrnoException).code ?? (e as Error).message}: it must be a writable directory`);
    }
    let db: Database.Database;
    try {
      db = this.openDatabase();
    } catch (e) {
      // The driver, not the file: nothing may be moved aside for it.
      const driver = driverProblem(e);
      if (driver) throw unusable(driver);
      // A newer schema is an upgrade to finish, not a file to move aside.
      const newer = /newer than this service/.test((e as Error).message);
      if (!options.freshIfUnusable || newer) {
        const fresh = newer ? '' : ', or set STATE_FRESH_IF_UNUSABLE=true to move it aside and start empty';
        throw unusable(`runs.sqlite cannot be used (${(e as Error).message}); if it is damaged, restore it from a backup${fresh}`);
      }
      const aside = `runs.sqlite.unusable-${new Date().toISOString().replaceAll(':', '-')}`;
      for (const ext of ['', '-wal', '-shm']) if (existsSync(this.file + ext)) renameSync(this.file + ext, join(stateDir, aside + ext));
      events({
        kind: 'fresh',
        reason: `runs.sqlite cannot be used (${(e as Error).message}): moved aside as ${aside} in STATE_DIR, starting with a fresh state (STATE_FRESH_IF_UNUSABLE)`,
      });
      db = this.openDatabase();
    }
    this.db = db;
    const st = statSync(this.file);
    this.identity = { dev: st.dev, ino: st.ino, size: st.size, pageSize: db.pragma('page_size', { simple: true }) as number };
    this.fd = openSync(this.file, 'r');
    this.health = new StoreHealth({ ping: async () => this.checkRoom(), probe: async () => this.probeRoom() }, events);
    if (options.checkIntervalMs) this.checker = setInterval(() => void this.quickCheck(events), options.checkIntervalMs).unref();
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
      addValues: db.prepare(
        'INSERT INTO step_values (run_id, step, struct, pers, ped, diversity, aboutness) VALUES (@run_id, @step, @struct, @pers, @ped, @diversity, @aboutness)',
      ),
      values: db.prepare<[string, number], { struct: Buffer; pers: Buffer; ped: Buffer; diversity: Buffer; aboutness: Buffer | null }>(
        'SELECT struct, pers, ped, diversity, aboutness FROM step_values WHERE run_id = ? AND step = ? ORDER BY id',
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
      receipt: db.prepare<[string, string], ReceiptColumns>('SELECT id, fingerprint, info FROM receipts WHERE run_id = ? AND key = ?'),
      putReceipt: db.prepare<[string, string, string, string]>('INSERT INTO receipts (run_id, key, fingerprint, info) VALUES (?, ?, ?, ?)'),
      pruneReceipts: db.prepare<[string, string, number]>(
        'DELETE FROM receipts WHERE run_id = ? AND id <= (SELECT id FROM receipts WHERE run_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)',
      ),
    };
  }

  /** Opens, checks and migrates the file; throws why it cannot be used. */
  private openDatabase(): Database.Database {
    const empty = unusableFile(this.file);
    if (empty) throw new Error(empty);
    const db = new Database(this.file, { timeout: 10_000 });
    try {
      db.pragma('journal_mode = WAL');
      // WAL + NORMAL: a commit survives a killed process (the WAL is in the OS cache); only a power loss can
      // drop the last commits.
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      // Damage anywhere in the file is found here rather than by the run that happens to read it.
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new Error(`integrity check failed (${String(check).split('\n')[0]})`);
      const version = db.pragma('user_version', { simple: true }) as number;
      const tables = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get()!.n;
      if (version === 0 && tables > 0) throw new Error('it holds tables of another program, not run state of this service');
      this.migrateOn(db);
      return db;
    } catch (e) {
      db.close();
      throw e;
    }
  }

  private migrateOn(db: Database.Database): void {
    db.exec('BEGIN IMMEDIATE');
    try {
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version > MIGRATIONS.length) throw new Error(`state database schema ${version} is newer than this service (${MIGRATIONS.length})`);
      for (let v = version; v < MIGRATIONS.length; v++) db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${MIGRATIONS.length}`);
      db.exec('COMMIT');
    } catch (e) {
      db.exec('ROLLBACK');
      throw e;
    }
  }

  async check(): Promise<string | null> {
    if (this.damaged) return this.damaged.message;
    try {
      this.checkFile();
      if (this.suspect) this.verifyPages();
    } catch (e) {
      return (e as Error).message;
    }
    return this.health.check();
  }

  /** Reads every page of the file for damage (QUICK_CHECK); what it finds makes the store damaged. */
  private async quickCheck(events: StoreEvents): Promise<void> {
    if (this.damaged || this.checking) return;
    this.checking = true;
    try {
      const found = await new Promise<string[]>((resolve, reject) => {
        const worker = new Worker(QUICK_CHECK, { eval: true, workerData: { module: require.resolve('better-sqlite3'), file: this.file } });
        worker
          .once('message', resolve)
          .once('error', reject)
          .once('exit', (code) => reject(new Error(`quick_check's thread exited with ${code}`)));
      });
      const damage = damageFound(found);
      if (damage === null) return;
      const damaged = this.damage(`is damaged: SQLite's quick_check found ${damage}`);
      events({ kind: 'down', reason: damaged.message });
    } catch {
      // A check that could not run (no thread to be had) finds nothing; the next one tries again.
    } finally {
      this.checking = false;
    }
  }

  /**
   * After a failed write, before anything more is read or acknowledged: every page read again (quick_check, on
   * this store's thread, which only run requests wait for). Damage found makes the store damaged.
   */
  private verifyPages(): void {
    let found: string[];
    try {
      found = (this.db.pragma('quick_check') as { quick_check: string }[]).map((r) => r.quick_check);
    } catch (e) {
      found = [`${sqliteCode(e)}: ${(e as Error).message}`];
    }
    const damage = damageFound(found);
    if (damage !== null) throw this.damage(`is damaged after a failed write: SQLite's quick_check found ${damage}`);
    this.suspect = false;
    this.events({ kind: 'up', reason: "runs.sqlite read through after a failed write (SQLite's quick_check): sound" });
  }

  /** Found damaged: nothing more is read from or written to the file, until an operator restores it. */
  private damage(what: string): StateDamaged {
    this.damaged ??= new StateDamaged(
      `the run state database (runs.sqlite in STATE_DIR) ${what}. Nothing more is read from or written to it; ` +
        'restore it from a backup (or move it away to start empty) and restart the service',
    );
    this.health.stop();
    return this.damaged;
  }

  /**
   * The file at the path is still the one opened, no shorter than it was (SQLite never shrinks it here: no
   * VACUUM, no auto-vacuum), with a SQLite header of the page size in use: deleted, replaced, truncated or
   * overwritten files are found on their next use, not at the next start.
   */
  private checkFile(): void {
    let st: Stats;
    try {
      st = statSync(this.file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw this.damage('was deleted while the service was using it');
      throw e;
    }
    if (st.ino !== this.identity.ino || st.dev !== this.identity.dev) throw this.damage('was replaced by another file while the service was using it');
    if (st.size < this.identity.size) throw this.damage(`was truncated while the service was using it (${this.identity.size} bytes before, ${st.size} now)`);
    this.identity.size = st.size;
    const header = Buffer.alloc(18);
    readSync(this.fd, header, 0, header.length, 0);
    const pageSize = header.readUInt16BE(16) === 1 ? 65_536 : header.readUInt16BE(16);
    if (!header.subarray(0, 16).equals(MAGIC) || pageSize !== this.identity.pageSize)
      throw this.damage('had its header overwritten while the service was using it');
  }

  private checkRoom(): void {
    const fs = statfsSync(this.stateDir);
    if (fs.bavail * fs.bsize < PROBE_BYTES) throw new Error(`the disk of STATE_DIR is full (${fs.bavail * fs.bsize} bytes free)`);
  }

  /** A full or failing disk: worth a retry once a real write of some room succeeds. */
  private probeRoom(): void {
    const probe = join(this.stateDir, '.runs.sqlite.probe');
    const fd = openSync(probe, 'w');
    try {
      writeSync(fd, Buffer.alloc(PROBE_BYTES));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
      unlinkSync(probe);
    }
  }

  /**
   * Runs f on the database unless it was found damaged; finding damage now stops every later use. A full
   * or failing disk is a 503 worth retrying, until the probe (or a later commit: `commits`) finds it writable
   * again; a read that succeeds says nothing of writing.
   */
  private async use<T>(f: () => T | Promise<T>, commits = false): Promise<T> {
    if (this.damaged) throw this.damaged;
    try {
      this.checkFile();
      if (this.suspect) this.verifyPages();
      const out = await f();
      if (commits) this.health.up();
      return out;
    } catch (e) {
      const code = sqliteCode(e);
      // SQLITE_CORRUPT and SQLITE_NOTADB (and their extended codes): pages that are not what SQLite wrote.
      if (/^SQLITE_(CORRUPT|NOTADB)/.test(code)) throw this.damage(`is damaged: ${(e as Error).message}`);
      // BUSY: another process held the write lock past the busy timeout.
      if (/^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|BUSY)/.test(code) || /^(ENOSPC|EIO|EROFS)$/.test(code)) {
        // A write that failed half-way may have left pages that are not what SQLite meant to write.
        if (/^SQLITE_(FULL|IOERR)|^(ENOSPC|EIO)$/.test(code)) this.suspect = true;
        const out = new StoreUnavailable(`the run state database cannot be written (${code}: ${(e as Error).message})`);
        this.health.down(out.message);
        throw out;
      }
      throw e;
    }
  }

  // Reads cost no round trip here: nothing is read ahead.
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
      }, true),
    );
    this.tail = result.catch(() => undefined);
    return result;
  }

  private tx(id: string): RunTx {
    const s = this.stmt;
    return {
      run: async () => this.readRun(id),
      saveRun: async (run) => void s.upsertRun.run(runColumns(run)),
      openStep: async () => this.readOpenStep(id),
      saveOpenStep: async (open) => void s.upsertOpen.run({ run_id: id, ...openStepColumns(open) }),
      addValues: async (step, raws, diversities, aboutness) => void s.addValues.run({ run_id: id, step, ...valueColumns(raws, diversities, aboutness) }),
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
        return r ? storedReceipt(r) : null;
      },
      putReceipt: async (key, receipt) => {
        const info = receiptInfo(receipt);
        return String(s.putReceipt.run(id, key, receipt.fingerprint, info).lastInsertRowid);
      },
      deleteRun: async () => s.deleteRun.run(id).changes > 0,
    };
  }

  // One connection: inside a transaction, these plain reads see its writes; the transaction's use() has
  // checked the file already.
  private readRun(id: string): RunRecord | null {
    const r = this.stmt.getRun.get(id);
    return r ? runRecord(r) : null;
  }

  private readOpenStep(id: string): OpenStep | null {
    const r = this.stmt.openStep.get(id);
    return r ? openStep(r) : null;
  }

  getRun(id: string): Promise<RunRecord | null> {
    return this.use(() => this.readRun(id));
  }

  openStep(id: string): Promise<OpenStep | null> {
    return this.use(() => this.readOpenStep(id));
  }

  listRuns(after: string | null, limit: number): Promise<RunRecord[]> {
    return this.use(() => this.stmt.listRuns.all(after ?? '', limit).map(runRecord));
  }

  history(runId: string, offset: number, limit: number): Promise<{ total: number; rows: HistoryRow[] }> {
    return this.use(() => ({ total: this.stmt.historyCount.get(runId)!.n, rows: this.stmt.history.all(runId, limit, offset).map(historyRow) }));
  }

  async close(): Promise<void> {
    await this.tail;
    if (this.checker) clearInterval(this.checker);
    this.health.stop();
    closeSync(this.fd);
    this.db.close();
  }
}
