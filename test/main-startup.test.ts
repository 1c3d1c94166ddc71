import { spawn } from 'node:child_process';
import { openSync, readdirSync, readFileSync, statSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { DEFAULT_RUN_CONFIG } from '../src/contracts/runs.js';
import { SqliteRunStore } from '../src/runs/sqlite-store.js';
import { tempStateDir, until } from './support/app.js';
import { builtNode, ROOT } from './support/children.js';
import { startService } from './support/service.js';
import { freshPostgresUrl } from './support/stores.js';
import { startProxy } from './support/tcp-proxy.js';
import { tempDir } from './support/temp.js';

// Start-up problems are the operator's to fix: one line on stderr naming the cause and the setting, a
// non-zero exit, no stack trace.
function startFails(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const [cmd, args] = builtNode('main');
  const child = spawn(cmd, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', STATE_DIR: tempStateDir(), WORKERS: '1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
}

const oneLine = (t: Test, out: { code: number | null; stderr: string }, pattern: RegExp) => {
  t.equal(out.code, 1, 'exit code 1');
  t.equal(out.stderr.trimEnd().split('\n').length, 1, `one line: ${out.stderr}`);
  t.match(out.stderr, /^tutor-reward: cannot start: /);
  t.match(out.stderr, pattern);
  t.notMatch(out.stderr, /\n\s+at /, 'no stack trace');
};

t.test('no keys on a reachable address: refused, unless ALLOW_ANONYMOUS', async (t) => {
  oneLine(t, await startFails({ HOST: '0.0.0.0' }), /refusing to listen on 0\.0\.0\.0 without API keys: set API_KEYS .*ALLOW_ANONYMOUS=true/);
  const svc = await startService({ HOST: '0.0.0.0', ALLOW_ANONYMOUS: 'true', STATE_DIR: tempStateDir() });
  t.teardown(() => svc.child.kill('SIGKILL'));
  t.equal((await fetch(`${svc.base}/health`)).status, 200);
  const keyed = await startService({ HOST: '0.0.0.0', API_KEYS: 'read:0123456789abcdef0123', STATE_DIR: tempStateDir() });
  t.teardown(() => keyed.child.kill('SIGKILL'));
  t.equal((await fetch(`${keyed.base}/runs`)).status, 401, 'with keys it starts, and asks for one');
  t.equal((await fetch(`${keyed.base}/runs`, { headers: { authorization: 'Bearer 0123456789abcdef0123' } })).status, 200);
  t.equal((await fetch(`${keyed.base}/runs`, { headers: { authorization: 'Bearer 0123456789abcdef0124' } })).status, 401);
  await keyed.waitForLine((l) => l.status === 401 && keyed.lines.filter((x) => x.url === '/runs').length === 3);
  t.notMatch(JSON.stringify(keyed.lines), /0123456789abcdef012/, 'no key, valid or not, is ever logged');
  t.same(
    keyed.lines.filter((x) => x.url === '/runs').map((x) => [x.status, x.key]),
    [
      [401, undefined],
      [200, 'key1'],
      [401, undefined],
    ],
    'the log names the key that called by its position in API_KEYS',
  );
});

t.test('bad settings, keys and state name their setting', async (t) => {
  oneLine(t, await startFails({ PORT: 'eighty' }), /invalid configuration: PORT: /);
  oneLine(t, await startFails({ TRUST_PROXY: '10.0.0.0/8, lb.internal' }), /invalid configuration: TRUST_PROXY: comma-separated addresses and CIDR ranges/);
  oneLine(t, await startFails({ TRUST_PROXY: '10.0.0.0/33' }), /invalid configuration: TRUST_PROXY: /);
  oneLine(t, await startFails({ API_KEYS: 'root:0123456789abcdef0123' }), /API_KEYS: entry 1 must be scope:key with scope one of read, score, admin/);
  oneLine(t, await startFails({ API_KEYS: 'read:short' }), /shorter than 16 characters/);
  oneLine(t, await startFails({ API_KEYS_FILE: '/nonexistent/keys' }), /API_KEYS_FILE cannot be read \(ENOENT\)/);

  const notADir = join(tempDir('tutor-state-'), 'file');
  writeFileSync(notADir, 'x');
  oneLine(t, await startFails({ STATE_DIR: notADir }), /cannot keep run state in .* \(STATE_DIR; .*\): (EEXIST|ENOTDIR).*writable directory/);

  const garbage = tempStateDir();
  writeFileSync(join(garbage, 'runs.sqlite'), 'this is not a database, it is a text file '.repeat(200));
  oneLine(t, await startFails({ STATE_DIR: garbage }), /runs\.sqlite cannot be used \(file is not a database\); if it is damaged, restore it/);
});

t.test('damage in the middle of the state database is found at start, not by the run that reads it', async (t) => {
  const dir = tempStateDir();
  const store = new SqliteRunStore(dir);
  for (const id of Array.from({ length: 400 }, (_, i) => `run-${i}`)) {
    await store.withRun(id, async (tx) => {
      await tx.saveRun({
        id,
        config: { ...DEFAULT_RUN_CONFIG, w0: { struct: 0.2, pers: 0.3, ped: 0.5 } },
        weights: { struct: 0.2, pers: 0.3, ped: 0.5 },
        ema: null,
        last_finalized_step: null,
        finalized_steps: 0,
        created_at: '2026-01-01',
        updated_at: '2026-01-01',
      });
    });
  }
  await store.close();
  const file = join(dir, 'runs.sqlite');
  const pages = statSync(file).size / 4096;
  t.ok(pages > 10, `${pages} pages`);
  // Overwrite a b-tree page in the middle with junk, as a bad sector or a torn copy would.
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, Math.floor(pages / 2) * 4096);
  closeSync(fd);
  t.equal(readFileSync(file).subarray(0, 15).toString(), 'SQLite format 3', 'the header is intact');
  oneLine(t, await startFails({ STATE_DIR: dir }), /runs\.sqlite cannot be used \(.*(integrity check failed|malformed)/);
});

t.test('an empty or foreign runs.sqlite is refused at start; STATE_FRESH_IF_UNUSABLE moves it aside and starts fresh', async (t) => {
  // A failed restore leaves a 0-byte file, in which SQLite would quietly start an empty state.
  const empty = tempStateDir();
  writeFileSync(join(empty, 'runs.sqlite'), '');
  oneLine(t, await startFails({ STATE_DIR: empty }), /runs\.sqlite cannot be used \(runs\.sqlite is empty \(0 bytes\).*STATE_FRESH_IF_UNUSABLE=true/);
  t.equal(statSync(join(empty, 'runs.sqlite')).size, 0, 'left as it was');

  const foreign = tempStateDir();
  const other = new Database(join(foreign, 'runs.sqlite'));
  other.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)');
  other.close();
  oneLine(t, await startFails({ STATE_DIR: foreign }), /runs\.sqlite cannot be used \(it holds tables of another program/);

  const svc = await startService({ STATE_DIR: empty, STATE_FRESH_IF_UNUSABLE: 'true' });
  t.teardown(() => svc.child.kill('SIGKILL'));
  const moved = svc.lines.find((l) => l.msg === 'run state store file unusable: started a fresh state');
  t.match(moved, { level: 40, reason: /runs\.sqlite is empty .*moved aside as runs\.sqlite\.unusable-\S+ in STATE_DIR/ });
  t.ok(
    readdirSync(empty).some((f) => /^runs\.sqlite\.unusable-/.test(f)),
    'the old file is kept beside the new one',
  );
  t.equal((await fetch(`${svc.base}/ready`)).status, 200);
});

t.test('PostgreSQL unreachable at start: the service listens, not ready, waits (STATE_WAIT_MS) logging each attempt, then is ready', async (t) => {
  const url = new URL(await freshPostgresUrl());
  const proxy = await startProxy({ host: url.hostname, port: Number(url.port) });
  t.teardown(() => proxy.close());
  url.port = String(proxy.port);
  proxy.refuse = true;
  oneLine(
    t,
    await startFails({ STATE_URL: url.toString(), STATE_WAIT_MS: '0' }),
    /cannot use the PostgreSQL database of STATE_URL after waiting 0 s \(STATE_WAIT_MS\): .*(ECONNREFUSED|ECONNRESET|Connection terminated)/,
  );

  // The service listens while it waits: alive (liveness passes), not ready, run requests 503.
  const svc = await startService({ STATE_DIR: tempStateDir(), STATE_URL: url.toString(), STATE_WAIT_MS: '60000', WORKERS: '1' }, [], { store: false });
  t.teardown(() => svc.child.kill('SIGKILL'));
  await until('two attempts refused', async () => proxy.refused >= 2);
  t.equal((await fetch(`${svc.base}/health`)).status, 200);
  const waiting = await fetch(`${svc.base}/ready`);
  t.equal(waiting.status, 503);
  t.match(await waiting.json(), { ready: false, reason: /waiting for the PostgreSQL database of STATE_URL/ });
  const early = await fetch(`${svc.base}/runs/x`);
  t.match([early.status, ((await early.json()) as { code: string }).code], [503, 'store_unavailable']);
  // The database comes up after the service has tried twice.
  proxy.refuse = false;
  await svc.waitForLine((l) => l.msg === 'run state store ready');
  await until('ready once the database is reached', async () => (await fetch(`${svc.base}/ready`)).status === 200);
  const waits = svc.lines.filter((l) => l.msg === 'run state store not reachable yet: waiting (STATE_WAIT_MS)');
  t.ok(waits.length >= 1, 'each attempt is logged');
  t.match(waits[0], { level: 40, reason: /PostgreSQL database of STATE_URL cannot be reached .*attempt 1, next in \d+ ms/ });
  t.notMatch(JSON.stringify(waits), /postgres:\/\//, 'never the URL (it may carry a password)');
});
