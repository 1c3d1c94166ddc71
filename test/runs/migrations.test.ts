// Versioned migrations: replicas starting together apply each once, and a state file written before the
// open step was durable (schema 1) is upgraded in place with its runs intact.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import t from 'tap';
import { PostgresRunStore } from '../../src/runs/postgres-store.js';
import { SqliteRunStore } from '../../src/runs/sqlite-store.js';
import { tempStateDir } from '../support/app.js';
import { freshPostgresUrl } from '../support/stores.js';

t.test('postgres: three replicas opening a fresh database at once migrate it exactly once', async (t) => {
  const url = await freshPostgresUrl();
  const stores = await Promise.all([0, 1, 2].map(() => PostgresRunStore.open(url)));
  t.teardown(() => Promise.all(stores.map((s) => s.close())));
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  t.teardown(() => c.end());
  const { rows } = await c.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  t.same(
    rows.map((r) => r.version),
    [1, 2],
  );
  t.equal(await stores[2]!.getRun('none'), null, 'every replica can read the schema');
});

t.test('postgres: steps finalized before gate reasons and diversity were kept read back as null, not zero', async (t) => {
  const url = await freshPostgresUrl();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  t.teardown(() => c.end());
  // The database as schema 1 left it, with one finalized step.
  const first = await PostgresRunStore.open(url);
  await first.close();
  await c.query(`ALTER TABLE history DROP COLUMN gate_reasons, DROP COLUMN diversity;
    ALTER TABLE open_steps DROP COLUMN gate_reasons;
    ALTER TABLE step_values DROP COLUMN diversity;
    DELETE FROM schema_migrations WHERE version = 2`);
  await c.query("INSERT INTO runs VALUES ('old', '{}', '{}', NULL, 0, 1, 'a', 'b')");
  await c.query("INSERT INTO history VALUES ('old', 0, 8, 2, 1, 0, 0.5, 0.5, 0.5, 0.3, 0.3, 0.4, 0.5, 0.5, 0.5, 0.3, 0.3, 0.4, 0, 'b')");
  const store = await PostgresRunStore.open(url);
  t.teardown(() => store.close());
  const { rows } = await store.history('old', 0, 10);
  t.match(rows, [{ step: 0, gated: 2, gate_reasons: null, diversity: null }]);
});

t.test('sqlite: a schema-1 state file (runs and history only) is upgraded with its runs intact', async (t) => {
  const dir = tempStateDir();
  const old = new Database(join(dir, 'runs.sqlite'));
  old.exec(`CREATE TABLE runs (id TEXT PRIMARY KEY, config TEXT NOT NULL, weights TEXT NOT NULL, ema TEXT,
    last_finalized_step INTEGER, finalized_steps INTEGER NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
    CREATE TABLE history (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step INTEGER NOT NULL,
    plans INTEGER NOT NULL, gated INTEGER NOT NULL, requests INTEGER NOT NULL, late_plans INTEGER NOT NULL DEFAULT 0,
    mean_struct REAL NOT NULL, mean_pers REAL NOT NULL, mean_ped REAL NOT NULL, w_struct REAL NOT NULL, w_pers REAL NOT NULL,
    w_ped REAL NOT NULL, ema_struct REAL NOT NULL, ema_pers REAL NOT NULL, ema_ped REAL NOT NULL, wa_struct REAL NOT NULL,
    wa_pers REAL NOT NULL, wa_ped REAL NOT NULL, refreshed INTEGER NOT NULL, finalized_at TEXT NOT NULL,
    PRIMARY KEY (run_id, step)) WITHOUT ROWID;`);
  old.pragma('user_version = 1');
  const weights = JSON.stringify({ struct: 0.5, pers: 0.25, ped: 0.25 });
  old.prepare('INSERT INTO runs VALUES (?, ?, ?, NULL, 3, 4, ?, ?)').run('kept', JSON.stringify({ alpha: 0.1 }), weights, 'a', 'b');
  old.exec("INSERT INTO history VALUES ('kept', 3, 8, 2, 1, 0, 0.5, 0.5, 0.5, 0.3, 0.3, 0.4, 0.5, 0.5, 0.5, 0.3, 0.3, 0.4, 0, 'b')");
  old.close();

  const store = new SqliteRunStore(dir);
  t.teardown(() => store.close());
  t.same((await store.getRun('kept'))?.weights, JSON.parse(weights));
  t.equal(await store.openStep('kept'), null);
  t.match((await store.history('kept', 0, 10)).rows, [{ step: 3, gated: 2, gate_reasons: null, diversity: null }], 'a gap, not a zero');
  const check = new Database(join(dir, 'runs.sqlite'), { readonly: true });
  t.teardown(() => check.close());
  t.equal(check.pragma('user_version', { simple: true }), 3);
  const tables = check
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((r) => r.name);
  t.same(
    tables.filter((n) => !n.startsWith('sqlite_')),
    ['history', 'open_steps', 'receipts', 'runs', 'step_values'],
  );
});

t.test('a state database newer than the service stops it at start', async (t) => {
  const dir = tempStateDir();
  const db = new Database(join(dir, 'runs.sqlite'));
  db.pragma('user_version = 99');
  db.close();
  t.throws(() => new SqliteRunStore(dir), /schema 99 is newer than this service/);
});
