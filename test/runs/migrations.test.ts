import { DEFAULT_SCORING } from '../../src/scoring/score-groups.js';
// Versioned migrations: replicas starting together apply each once, and a state file written before the
// open step was durable (schema 1) is upgraded in place with its runs intact.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import t from 'tap';
import { RunLedger } from '../../src/runs/ledger.js';
import { PostgresRunStore } from '../../src/runs/postgres-store.js';
import { SqliteRunStore } from '../../src/runs/sqlite-store.js';
import type { RunStore } from '../../src/runs/store.js';
import type { Tally } from '../../src/scoring/score-groups.js';
import { tempStateDir } from '../support/app.js';
import { ENGINES, type Engine, freshPostgresUrl, openStore, stateSettings } from '../support/stores.js';

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
    [1, 2, 3, 4, 5],
  );
  t.equal(await stores[2]!.getRun('none'), null, 'every replica can read the schema');
});

t.test('postgres: steps finalized before gate reasons, diversity, gaming counts and aboutness were kept read back as null, not zero', async (t) => {
  const url = await freshPostgresUrl();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  t.teardown(() => c.end());
  // The database as schema 1 left it, with one finalized step.
  const first = await PostgresRunStore.open(url);
  await first.close();
  await c.query(`ALTER TABLE history DROP COLUMN gate_reasons, DROP COLUMN diversity, DROP COLUMN flagged, DROP COLUMN gaming, DROP COLUMN aboutness;
    ALTER TABLE open_steps DROP COLUMN gate_reasons, DROP COLUMN flagged, DROP COLUMN gaming;
    ALTER TABLE step_values DROP COLUMN diversity, DROP COLUMN aboutness;
    DELETE FROM schema_migrations WHERE version >= 2`);
  await c.query("INSERT INTO runs VALUES ('old', '{}', '{}', NULL, 0, 1, 'a', 'b')");
  await c.query("INSERT INTO history VALUES ('old', 0, 8, 2, 1, 0, 0.5, 0.5, 0.5, 0.3, 0.3, 0.4, 0.5, 0.5, 0.5, 0.3, 0.3, 0.4, 0, 'b')");
  const store = await PostgresRunStore.open(url);
  t.teardown(() => store.close());
  const { rows } = await store.history('old', 0, 10);
  t.match(rows, [{ step: 0, gated: 2, gate_reasons: null, diversity: null, flagged: null, gaming: null, aboutness: null }]);
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
  t.match(
    (await store.history('kept', 0, 10)).rows,
    [{ step: 3, gated: 2, gate_reasons: null, diversity: null, flagged: null, gaming: null, aboutness: null }],
    'a gap, not a zero',
  );
  const check = new Database(join(dir, 'runs.sqlite'), { readonly: true });
  t.teardown(() => check.close());
  t.equal(check.pragma('user_version', { simple: true }), 5);
  const tables = check
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((r) => r.name);
  t.same(
    tables.filter((n) => !n.startsWith('sqlite_')),
    ['history', 'open_steps', 'receipts', 'runs', 'step_values'],
  );
});

// Back to the schema before aboutness: its columns dropped (on PostgreSQL, the shared rate limits' table of
// the migration after it too), their versions undone.
async function beforeAboutness(engine: Engine, s: { STATE_DIR: string; STATE_URL?: string }): Promise<void> {
  if (engine === 'postgres') {
    const c = new pg.Client({ connectionString: s.STATE_URL });
    await c.connect();
    await c.query(`ALTER TABLE history DROP COLUMN aboutness;
      ALTER TABLE step_values DROP COLUMN aboutness;
      DROP TABLE rate_limits;
      DELETE FROM schema_migrations WHERE version >= 4`);
    await c.end();
    return;
  }
  const db = new Database(join(s.STATE_DIR, 'runs.sqlite'));
  for (const table of ['history', 'step_values']) db.exec(`ALTER TABLE ${table} DROP COLUMN aboutness`);
  db.pragma('user_version = 4');
  db.close();
}

// Back to the schema before gaming counts: the columns of the last two migrations dropped, their versions undone.
async function beforeGamingCounts(engine: Engine, s: { STATE_DIR: string; STATE_URL?: string }): Promise<void> {
  await beforeAboutness(engine, s);
  if (engine === 'postgres') {
    const c = new pg.Client({ connectionString: s.STATE_URL });
    await c.connect();
    await c.query(`ALTER TABLE history DROP COLUMN flagged, DROP COLUMN gaming;
      ALTER TABLE open_steps DROP COLUMN flagged, DROP COLUMN gaming;
      DELETE FROM schema_migrations WHERE version = 3`);
    await c.end();
    return;
  }
  const db = new Database(join(s.STATE_DIR, 'runs.sqlite'));
  for (const table of ['history', 'open_steps']) for (const column of ['flagged', 'gaming']) db.exec(`ALTER TABLE ${table} DROP COLUMN ${column}`);
  db.pragma('user_version = 3');
  db.close();
}

for (const engine of ENGINES) {
  t.test(`${engine}: gaming counts added to a kept state: null for steps finalized or begun before, counted from the next step`, async (t) => {
    const s = await stateSettings(engine);
    const judged = { lambda_hard: DEFAULT_SCORING.lambda_hard, reward_profile: DEFAULT_SCORING.reward_profile };
    const tally = (flagged: number, gaming: Tally['gaming']): Tally => ({
      raws: [{ struct: 1, pers: 1, ped: 1 }],
      gated: 1,
      gateReasons: { cycle: 1 },
      diversities: [],
      flagged,
      gaming,
    });
    const count = async (store: RunStore, step: number, flagged: number, gaming: Tally['gaming']) =>
      new RunLedger(store, { ...judged, maxRuns: 10 }).count('kept', step, tally(flagged, gaming), judged);
    const old = await openStore(s);
    await count(old, 0, 1, { off_topic: 1 });
    await count(old, 1, 1, { off_topic: 1 }); // finalizes step 0; step 1 stays open across the upgrade
    await old.close();
    await beforeGamingCounts(engine, s);

    const store = await openStore(s);
    t.teardown(() => store.close());
    await count(store, 1, 1, { duplicate_steps: 1 });
    await count(store, 2, 1, { duplicate_steps: 1 });
    await new RunLedger(store, { ...judged, maxRuns: 10 }).finalize('kept');
    t.match((await store.history('kept', 0, 10)).rows, [
      { step: 0, gate_reasons: { cycle: 1 }, flagged: null, gaming: null },
      { step: 1, plans: 2, gate_reasons: { cycle: 2 }, flagged: null, gaming: null },
      { step: 2, flagged: 1, gaming: { duplicate_steps: 1 } },
    ]);
  });

  t.test(`${engine}: aboutness added to a kept state: null for steps finalized or begun before, the mean from the next step`, async (t) => {
    const s = await stateSettings(engine);
    const judged = { lambda_hard: DEFAULT_SCORING.lambda_hard, reward_profile: DEFAULT_SCORING.reward_profile };
    const tally = (aboutness: number[]): Tally => ({
      raws: [{ struct: 1, pers: 1, ped: 1 }],
      gated: 0,
      gateReasons: {},
      diversities: [],
      flagged: 0,
      gaming: {},
      aboutness,
    });
    const count = async (store: RunStore, step: number, aboutness: number[]) =>
      new RunLedger(store, { ...judged, maxRuns: 10 }).count('kept', step, tally(aboutness), judged);
    const old = await openStore(s);
    await count(old, 0, [0.5]);
    await count(old, 1, [0.5]); // finalizes step 0; step 1 stays open across the upgrade
    await old.close();
    await beforeAboutness(engine, s);

    const store = await openStore(s);
    t.teardown(() => store.close());
    await count(store, 1, [0.25]);
    await count(store, 2, [0.25]);
    await count(store, 2, [0.75]);
    await new RunLedger(store, { ...judged, maxRuns: 10 }).finalize('kept');
    t.match((await store.history('kept', 0, 10)).rows, [
      { step: 0, flagged: 0, aboutness: null },
      { step: 1, plans: 2, flagged: 0, aboutness: null },
      { step: 2, plans: 2, aboutness: 0.5 },
    ]);
  });
}

t.test('a state database newer than the service stops it at start', async (t) => {
  const dir = tempStateDir();
  const db = new Database(join(dir, 'runs.sqlite'));
  db.pragma('user_version = 99');
  db.close();
  t.throws(() => new SqliteRunStore(dir), /schema 99 is newer than this service/);
});
