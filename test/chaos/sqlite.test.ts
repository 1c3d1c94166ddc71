// The embedded state under what disks and operators do to it while the service runs: the disk fills up
// (a 4 MiB tmpfs as STATE_DIR, in a private mount namespace), and runs.sqlite is deleted, truncated,
// overwritten or replaced. A full disk is a 503 worth retrying that heals by itself once there is room;
// a changed file is found on its next use (or the next /ready), 503 state_damaged, and nothing more is
// written to it. Scoring without a run goes on throughout.
import { randomBytes } from 'node:crypto';
import { closeSync, copyFileSync, openSync, readFileSync, renameSync, rmSync, statSync, truncateSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { EXAMPLE_SCORE_REQUEST } from '../../src/contracts/examples.js';
import type { RunView } from '../../src/contracts/runs.js';
import { tempStateDir, testApp, until } from '../support/app.js';
import { startService } from '../support/service.js';
import { slowDisk } from '../support/slow-write.js';

const inRun = (key: string, step = 0) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', 'idempotency-key': key },
  body: JSON.stringify({ ...EXAMPLE_SCORE_REQUEST, run_id: 'r', step }),
});
const stateless = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...EXAMPLE_SCORE_REQUEST, run_id: null }) };

t.test('a full disk: 503 store_unavailable and /ready 503 while it is full, back by itself once there is room', async (t) => {
  const dir = tempStateDir();
  // A private mount namespace (user namespace too, so no root is needed): the tmpfs goes with the process.
  const svc = await startService({ STATE_DIR: dir, WORKERS: '1' }, [
    'unshare',
    '--user',
    '--map-root-user',
    '--mount',
    '--propagation',
    'private',
    'sh',
    '-c',
    'mount -t tmpfs -o size=4m tmpfs "$0" && exec "$@"',
    dir,
  ]);
  t.teardown(() => svc.child.kill('SIGKILL'));
  // The service's view of STATE_DIR, through its own mount namespace.
  const seen = `/proc/${svc.child.pid}/root${dir}`;
  t.ok(statSync(join(seen, 'runs.sqlite')).isFile());
  const post = (init: RequestInit) => fetch(`${svc.base}/score-plan`, init);
  t.equal((await post(inRun('a'))).status, 200);

  const filler = join(seen, 'filler');
  const fd = openSync(filler, 'w');
  try {
    for (const chunk = Buffer.alloc(64 * 1024, 1); ; ) writeSync(fd, chunk);
  } catch (e) {
    t.equal((e as NodeJS.ErrnoException).code, 'ENOSPC', 'the disk is full');
  } finally {
    closeSync(fd);
  }
  const full = await post(inRun('b'));
  t.equal(full.status, 503);
  t.equal(full.headers.get('retry-after'), '1');
  t.match(await full.json(), { code: 'store_unavailable', message: /cannot be written \(SQLITE_FULL.*nothing was recorded, retry later/ });
  const ready = await fetch(`${svc.base}/ready`);
  t.equal(ready.status, 503);
  t.match(await ready.json(), { ready: false, reason: /SQLITE_FULL|disk of STATE_DIR is full/ });
  t.equal((await post(stateless)).status, 200, 'scoring without a run goes on');
  t.equal((await fetch(`${svc.base}/health`)).status, 200);
  t.equal((await fetch(`${svc.base}/runs/r`)).status, 200, 'reads still work');
  t.equal((await fetch(`${svc.base}/ready`)).status, 503, 'a read that succeeds does not make a full disk ready');

  rmSync(filler);
  await until('ready again', async () => (await fetch(`${svc.base}/ready`)).status === 200);
  t.equal((await post(inRun('b'))).status, 200);
  t.equal((await post(inRun('b'))).status, 200, 'its retry');
  const run = (await (await fetch(`${svc.base}/runs/r`)).json()) as RunView;
  t.equal(run.open_step?.requests, 2, 'a and b, each counted once');
  t.ok(svc.lines.some((l) => l.msg === 'run state store is back'));
  t.equal(svc.child.exitCode, null);
});

const changes: Record<string, (file: string) => void> = {
  deleted: (file) => unlinkSync(file),
  truncated: (file) => truncateSync(file, Math.floor(statSync(file).size / 2)),
  // Random bytes over the first 80 % of the file, as a stray dd would write them.
  overwritten: (file) => {
    const fd = openSync(file, 'r+');
    writeSync(fd, randomBytes(Math.floor(statSync(file).size * 0.8)), 0, undefined, 0);
    closeSync(fd);
  },
  replaced: (file) => {
    copyFileSync(file, `${file}.copy`);
    renameSync(`${file}.copy`, file);
  },
};
const found = { deleted: /was deleted/, truncated: /was truncated/, overwritten: /header overwritten|is damaged/, replaced: /was replaced by another file/ };

for (const [what, change] of Object.entries(changes)) {
  t.test(`runs.sqlite ${what} while running: found at once, 503 state_damaged, /ready 503`, async (t) => {
    const dir = tempStateDir();
    const app = await testApp({ STATE_DIR: dir });
    t.teardown(() => app.close());
    const send = (key: string) => app.inject({ method: 'POST', url: '/score-plan', headers: { 'idempotency-key': key }, payload: JSON.parse(inRun(key).body) });
    t.equal((await send('a')).statusCode, 200);
    change(join(dir, 'runs.sqlite'));

    const ready = await app.inject({ method: 'GET', url: '/ready' });
    t.equal(ready.statusCode, 503, 'found by the readiness probe, before any request');
    t.match(ready.json().reason, found[what as keyof typeof found]);
    const after = await send('b');
    t.equal(after.statusCode, 503);
    t.match(after.json(), { code: 'state_damaged', message: /runs\.sqlite in STATE_DIR.*restore it from a backup/ });
    t.equal((await app.inject({ method: 'GET', url: '/runs/r' })).json().code, 'state_damaged');
    t.equal((await app.inject({ method: 'POST', url: '/score-plan', payload: { ...EXAMPLE_SCORE_REQUEST, run_id: null } })).statusCode, 200, 'stateless');
  });
}

// Bytes changed inside the file under a sound header (a failing disk, a stray write): SQLite's quick_check,
// run on its own thread every STATE_CHECK_INTERVAL_MS, finds them before the next start does.
t.test('runs.sqlite damaged inside, header intact: the periodic quick_check finds it, 503 state_damaged, /ready 503', async (t) => {
  const dir = tempStateDir();
  const app = await testApp({ STATE_DIR: dir, STATE_CHECK_INTERVAL_MS: 100 });
  t.teardown(() => app.close());
  const send = (key: string) => app.inject({ method: 'POST', url: '/score-plan', headers: { 'idempotency-key': key }, payload: JSON.parse(inRun(key).body) });
  for (const key of ['a', 'b', 'c']) t.equal((await send(key)).statusCode, 200);
  t.equal((await app.inject({ method: 'GET', url: '/ready' })).statusCode, 200, 'sound: the checks find nothing');
  const file = join(dir, 'runs.sqlite');
  // As SQLite's automatic checkpoint leaves a long-running file: its pages in the file, not in the WAL.
  const other = new Database(file);
  other.pragma('wal_checkpoint(TRUNCATE)');
  other.close();
  const page = readFileSync(file).readUInt16BE(16);
  const fd = openSync(file, 'r+');
  // The second page and after: table b-tree pages, not the header the per-use check reads.
  writeSync(fd, randomBytes(statSync(file).size - page), 0, undefined, page);
  closeSync(fd);
  await until('found by quick_check', async () => (await app.inject({ method: 'GET', url: '/ready' })).statusCode === 503);
  t.match((await app.inject({ method: 'GET', url: '/ready' })).json().reason, /quick_check found/);
  const after = await send('d');
  t.equal(after.statusCode, 503);
  t.match(after.json(), { code: 'state_damaged', message: /restore it from a backup/ });
});

// A write that waits (a slow disk, another process holding the database's write lock) waits on the store's
// own thread: the event loop goes on answering probes and scoring without a run.
t.test('a write held up on runs.sqlite stalls run requests only: /health, /ready and stateless scoring answer meanwhile', async (t) => {
  const dir = tempStateDir();
  const app = await testApp({ STATE_DIR: dir });
  t.teardown(() => app.close());
  const send = (key: string) => app.inject({ method: 'POST', url: '/score-plan', headers: { 'idempotency-key': key }, payload: JSON.parse(inRun(key).body) });
  t.equal((await send('a')).statusCode, 200);
  const holder = new Database(join(dir, 'runs.sqlite'));
  t.teardown(() => holder.close());
  holder.exec('BEGIN IMMEDIATE');
  let settled = false;
  const held = send('b').then((r) => {
    settled = true;
    return r;
  });
  t.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
  t.equal((await app.inject({ method: 'POST', url: '/score-plan', payload: { ...EXAMPLE_SCORE_REQUEST, run_id: null } })).statusCode, 200, 'stateless');
  // Once the request is at the store, nothing can be committed: /ready says so, in time, not left waiting.
  let ready = await app.inject({ method: 'GET', url: '/ready' });
  await until('not ready while the write waits', async () => (ready = await app.inject({ method: 'GET', url: '/ready' })).statusCode === 503);
  t.match(ready.json().reason, /did not answer .*a lock another process holds/);
  t.equal(settled, false, 'the run request still waits for the lock');
  holder.exec('COMMIT');
  const done = await held;
  t.equal(done.statusCode, 200, 'and is counted once the lock is free');
  t.match(done.json(), { run: { step: 0 } });
  await until('ready again', async () => (await app.inject({ method: 'GET', url: '/ready' })).statusCode === 200);
});

// A slow disk (test/fixtures/slow-write, LD_PRELOAD): every write and sync in STATE_DIR waits 10 ms first.
t.test('a disk that takes 10 ms over every write: probes answer while run requests wait; each acknowledged request counted once', async (t) => {
  const dir = tempStateDir();
  const svc = await startService({ STATE_DIR: dir, WORKERS: '1', ...slowDisk(10, dir) });
  t.teardown(() => svc.child.kill('SIGKILL'));
  const post = (key: string) => fetch(`${svc.base}/score-plan`, inRun(key));
  let answered = 0;
  const pending = Array.from({ length: 8 }, (_, i) =>
    post(`slow-${i}`).then((r) => {
      answered++;
      return r.status;
    }),
  );
  t.equal((await fetch(`${svc.base}/health`)).status, 200);
  t.ok(answered < 8, 'answered while run requests still wait for the disk');
  t.same(await Promise.all(pending), Array(8).fill(200));
  const again = await post('slow-3');
  t.equal(again.status, 200, 'a retry');
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  const run = (await (await fetch(`${svc.base}/runs/r`)).json()) as RunView;
  t.equal(run.open_step?.requests, 8, 'each counted once');
});

// An I/O error mid-write (test/fixtures/slow-write fails every write in STATE_DIR while a flag file exists):
// 503 worth retrying, and before anything more is acknowledged every page of the file is read again.
t.test('a write that fails with EIO: 503, then the file is read through before the next acknowledgement', async (t) => {
  const dir = tempStateDir();
  const flag = `${dir}.fail`;
  const svc = await startService({ STATE_DIR: dir, WORKERS: '1', ...slowDisk(0, dir, flag) });
  t.teardown(() => svc.child.kill('SIGKILL'));
  const post = (key: string) => fetch(`${svc.base}/score-plan`, inRun(key));
  t.equal((await post('a')).status, 200);
  writeFileSync(flag, '');
  const failed = await post('b');
  t.equal(failed.status, 503);
  t.match(await failed.json(), { code: 'store_unavailable', message: /SQLITE_IOERR/ });
  rmSync(flag);
  const readThrough = (l: Record<string, unknown>) => l.msg === 'run state store is back' && /quick_check\): sound/.test(String(l.reason));
  t.notOk(svc.lines.some(readThrough), 'not read through yet');
  await until('acknowledged again', async () => (await post('c')).status === 200);
  // The service's own log, one stream in order: the read-through, then the request it let through.
  const scored = (l: Record<string, unknown>) => l.msg === 'scored' && l.status === 200;
  await svc.waitForLine((l) => scored(l) && svc.lines.filter(scored).length >= 2);
  const at = svc.lines.findIndex(readThrough);
  t.ok(at >= 0, 'read through');
  t.ok(at < svc.lines.findLastIndex(scored), 'before the acknowledgement of c');
  const run = (await (await fetch(`${svc.base}/runs/r`)).json()) as RunView;
  t.equal(run.open_step?.requests, 2, 'a and c; b was not recorded');
});
