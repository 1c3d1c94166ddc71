// Backup and restore as docs/backup.md says, on both engines: a run with steps, backed up while the service
// runs, restored into a fresh state, reads back equal in a fresh service.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import t from 'tap';
import { runCli } from '../../src/cli/main.js';
import { EXAMPLE_SCORE_REQUEST } from '../../src/contracts/examples.js';
import { testApp, tempStateDir } from '../support/app.js';
import { freshPostgresUrl } from '../support/stores.js';
import { tempDir } from '../support/temp.js';
import { cli } from './support.js';

const RUN = 'backed-up';

/** A run with finalized steps and an open one. */
async function fill(app: FastifyInstance, from: number, to: number): Promise<void> {
  if (from === 0)
    t.equal((await app.inject({ method: 'PUT', url: `/runs/${RUN}`, payload: { t_warm: 1, t_refresh: 2, alpha: 0.3 } })).statusCode, 201, 'created');
  for (let step = from; step < to; step++) {
    const r = await app.inject({ method: 'POST', url: '/score-plan', payload: { ...EXAMPLE_SCORE_REQUEST, run_id: RUN, step } });
    t.equal(r.statusCode, 200);
  }
}

/** What a client reads of the run: GET /runs/:id and its whole history. */
async function readBack(app: FastifyInstance): Promise<{ run: unknown; history: unknown }> {
  const run = await app.inject({ method: 'GET', url: `/runs/${RUN}` });
  const history = await app.inject({ method: 'GET', url: `/runs/${RUN}/history?limit=1000` });
  t.equal(run.statusCode, 200);
  return { run: run.json(), history: history.json() };
}

t.test('sqlite: plan-reward backup while the service runs, plan-reward restore into a fresh STATE_DIR', async (t) => {
  const live = tempStateDir();
  const app = await testApp({ STATE_DIR: live });
  t.teardown(() => app.close());
  await fill(app, 0, 6);
  const before = await readBack(app);
  t.match(before, { run: { last_finalized_step: 4, open_step: { step: 5 } }, history: { total: 5 } });

  const dest = join(tempDir('backup-'), 'backups', 'runs-backup.sqlite');
  const backup = await cli(['backup', dest], [], { STATE_DIR: live });
  t.equal(backup.code, 0, backup.stderr);
  t.match(backup.stdout, /^backed up .*runs\.sqlite to .*runs-backup\.sqlite \(1 runs\)$/m);
  // Written after the backup: not in it.
  await fill(app, 6, 8);

  const again = await cli(['backup', dest], [], { STATE_DIR: live });
  t.equal(again.code, 2);
  t.match(again.stderr, /backup: .*runs-backup\.sqlite exists; name a new file/);
  const inUse = await cli(['restore', dest], [], { STATE_DIR: live });
  t.equal(inUse.code, 1);
  t.match(inUse.stderr, /runs\.sqlite is in use, by a running service: stop it, then restore/);

  const fresh = tempStateDir();
  const restored = await cli(['restore', dest], [], { STATE_DIR: fresh });
  t.equal(restored.code, 0, restored.stderr);
  t.match(restored.stdout, /^restored .*runs-backup\.sqlite \(1 runs\) to .*runs\.sqlite\n$/);
  const second = await testApp({ STATE_DIR: fresh });
  t.teardown(() => second.close());
  t.same(await readBack(second), before, 'the run and its history, as they were at the backup');

  // Over an existing state (the service stopped): the state replaced is kept beside it.
  await app.close();
  const over = await cli(['restore', dest], [], { STATE_DIR: live });
  t.equal(over.code, 0, over.stderr);
  t.match(over.stdout, /the state it replaced is .*runs\.sqlite\.before-restore-/);
  t.ok(
    readdirSync(live).some((f) => /^runs\.sqlite\.before-restore-[^-]+.*Z$/.test(f)),
    'kept aside',
  );
  t.notOk(existsSync(join(live, 'runs.sqlite-wal')), 'no WAL of the replaced state left to replay into the backup');
  const third = await testApp({ STATE_DIR: live });
  t.teardown(() => third.close());
  t.same(await readBack(third), before, 'the steps written after the backup are gone');
});

/** The CLI in this process (as `runCli` runs it), with `env` set for the call: the same paths as `cli`, measured. */
async function inProcess(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  let stdout = '';
  let stderr = '';
  try {
    const code = await runCli(args, { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, stderrIsTTY: false });
    return { code, stdout, stderr };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

t.test('in process: backup of a stopped service, restore into a fresh STATE_DIR and over the old state', async (t) => {
  const live = tempStateDir();
  const app = await testApp({ STATE_DIR: live });
  await fill(app, 0, 3);
  const before = await readBack(app);
  await app.close();
  const dest = join(tempDir('backup-'), 'runs-backup.sqlite');
  const backup = await inProcess(['backup', dest], { STATE_DIR: live });
  t.equal(backup.code, 0, backup.stderr);
  const fresh = tempStateDir();
  t.equal((await inProcess(['restore', dest], { STATE_DIR: fresh })).code, 0);
  t.equal((await inProcess(['restore', dest], { STATE_DIR: live })).code, 0, 'over a state nobody has open');
  for (const dir of [fresh, live]) {
    const restored = await testApp({ STATE_DIR: dir });
    t.teardown(() => restored.close());
    t.same(await readBack(restored), before);
  }
  t.match((await inProcess(['backup', '--help'], { STATE_DIR: fresh })).stdout, /Usage: plan-reward backup <file>/);
});

t.test('restore refuses what is not a backup of run state; both refuse PostgreSQL state', async (t) => {
  const dir = tempDir('backup-');
  const junk = join(dir, 'junk.sqlite');
  writeFileSync(junk, 'not a database at all, but long enough to be read as one');
  const fresh = tempStateDir();
  const r = await inProcess(['restore', junk], { STATE_DIR: fresh });
  t.equal(r.code, 1);
  t.match(r.stderr, /junk\.sqlite/);
  t.notOk(existsSync(join(fresh, 'runs.sqlite')), 'nothing restored');
  t.match((await inProcess(['restore', join(dir, 'none.sqlite')], { STATE_DIR: fresh })).stderr, /restore: .*none\.sqlite not found/);
  t.match((await inProcess(['backup', join(dir, 'b.sqlite')], { STATE_DIR: fresh })).stderr, /backup: there is no .*runs\.sqlite \(STATE_DIR\) to back up/);
  t.equal((await inProcess(['restore', 'a', 'b'], { STATE_DIR: fresh })).code, 2, 'one file');
  for (const command of ['backup', 'restore']) {
    const pgState = await inProcess([command, join(dir, 'x')], { STATE_URL: 'postgres://u@127.0.0.1:1/db' });
    t.equal(pgState.code, 2);
    t.match(pgState.stderr, new RegExp(`${command}: STATE_URL is set, so run state is in PostgreSQL: use pg_dump / pg_restore`));
  }
});

t.test('postgres: pg_dump while the service runs, pg_restore into a fresh database and over the old one', async (t) => {
  const url = await freshPostgresUrl();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const major = Math.floor(Number((await client.query<{ v: string }>('SHOW server_version_num')).rows[0]!.v) / 10_000);
  await client.end();
  // The client tools of the server's own version (Debian keeps each under /usr/lib/postgresql/<major>/bin).
  const tool = (name: string) => [`/usr/lib/postgresql/${major}/bin/${name}`].find(existsSync) ?? name;
  const state = { STATE_DIR: tempStateDir(), STATE_URL: url };
  const app = await testApp(state);
  t.teardown(() => app.close());
  await fill(app, 0, 6);
  const before = await readBack(app);

  const dump = join(tempDir('backup-'), 'tutor-reward.dump');
  execFileSync(tool('pg_dump'), ['--format=custom', `--file=${dump}`, url]);
  await fill(app, 6, 8);

  const restoredUrl = await freshPostgresUrl();
  execFileSync(tool('pg_restore'), ['--no-owner', `--dbname=${restoredUrl}`, dump]);
  const second = await testApp({ STATE_DIR: tempStateDir(), STATE_URL: restoredUrl });
  t.teardown(() => second.close());
  t.same(await readBack(second), before, 'into a fresh database: the run and its history, as they were at the dump');

  await app.close();
  execFileSync(tool('pg_restore'), ['--clean', '--if-exists', '--no-owner', '--single-transaction', `--dbname=${url}`, dump]);
  const third = await testApp(state);
  t.teardown(() => third.close());
  t.same(await readBack(third), before, 'over the old database: the steps written after the dump are gone');
});
