import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../config.js';
import { commandArgs, UsageError } from './usage.js';

export const STATE_USAGE = `Usage: plan-reward backup <file>
       plan-reward restore <file>

The SQLite run state (runs.sqlite under STATE_DIR; PostgreSQL state is backed up with pg_dump, docs/backup.md).
  backup <file>    a consistent copy, taken while the service runs, into a new file
  restore <file>   replaces runs.sqlite by a backup, with the service stopped; the state it replaces is kept
                   beside it as runs.sqlite.before-restore-<time>
`;

type Out = { write(s: string): unknown };

/** STATE_DIR, as the service reads it; PostgreSQL state has its own tools. */
function stateDir(command: string): string {
  const config = loadConfig();
  if (config.STATE_URL !== undefined)
    throw new UsageError(`${command}: STATE_URL is set, so run state is in PostgreSQL: use pg_dump / pg_restore (docs/backup.md)`);
  return config.STATE_DIR;
}

/** The command's one file argument; null after writing the usage for --help. */
function oneFile(command: string, argv: readonly string[], out: Out): string | null {
  const { values, positionals } = commandArgs(argv, { help: { type: 'boolean', short: 'h', default: false } });
  if (values.help) {
    out.write(STATE_USAGE);
    return null;
  }
  if (positionals.length !== 1) throw new UsageError(`${command}: expected one file, got ${positionals.length}`);
  return positionals[0]!;
}

/** Run state of this service in `file`: a sound SQLite database with the runs table and a schema version. */
function checkState(file: string): { runs: number } {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new Error(`${file} cannot be opened: ${(e as Error).message}`);
  }
  try {
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error(`${file} is damaged (${String(check).split('\n')[0]})`);
    const tables = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'runs'").get()!.n;
    if (tables === 0 || db.pragma('user_version', { simple: true }) === 0) throw new Error(`${file} holds no run state of this service`);
    return { runs: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM runs').get()!.n };
  } catch (e) {
    throw new Error((e as Error).message.startsWith(file) ? (e as Error).message : `${file}: ${(e as Error).message}`);
  } finally {
    db.close();
  }
}

/**
 * `VACUUM INTO`: one read transaction, so a consistent snapshot however busy the service is (WAL: writers
 * go on meanwhile), written compacted into a new file.
 */
export function backupCommand(argv: readonly string[], out: Out): void {
  const dest = oneFile('backup', argv, out);
  if (dest === null) return;
  const source = join(stateDir('backup'), 'runs.sqlite');
  if (!existsSync(source)) throw new UsageError(`backup: there is no ${source} (STATE_DIR) to back up`);
  if (existsSync(dest)) throw new UsageError(`backup: ${dest} exists; name a new file`);
  mkdirSync(dirname(dest), { recursive: true });
  const db = new Database(source, { fileMustExist: true, timeout: 10_000 });
  try {
    db.prepare('VACUUM INTO ?').run(dest);
  } finally {
    db.close();
  }
  const { runs } = checkState(dest);
  out.write(`backed up ${source} to ${dest} (${runs} runs)\n`);
}

/** Nobody else has the state open: an exclusive lock is granted only then (a running service holds a shared one). */
function assertNotInUse(file: string): void {
  const db = new Database(file, { fileMustExist: true, timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
  } catch (e) {
    if ((e as { code?: string }).code === 'SQLITE_BUSY') throw new Error(`${file} is in use, by a running service: stop it, then restore`);
    // Damaged or not a database: it is being replaced, which is what a restore is for.
  } finally {
    db.close();
  }
}

export function restoreCommand(argv: readonly string[], out: Out): void {
  const backup = oneFile('restore', argv, out);
  if (backup === null) return;
  const dir = stateDir('restore');
  if (!existsSync(backup)) throw new UsageError(`restore: ${backup} not found`);
  const { runs } = checkState(backup);
  mkdirSync(dir, { recursive: true });
  const target = join(dir, 'runs.sqlite');
  if (existsSync(target)) assertNotInUse(target);
  // Copied in full and flushed beside the target first, so that the rename below either happens whole or not.
  const staged = `${target}.restoring`;
  copyFileSync(backup, staged);
  const fd = openSync(staged, 'r+');
  fsyncSync(fd);
  closeSync(fd);
  // The WAL and shared memory belong to the file replaced: left in place, SQLite would replay that WAL into the backup.
  const aside = `runs.sqlite.before-restore-${new Date().toISOString().replaceAll(':', '-')}`;
  const kept = existsSync(target);
  for (const ext of ['', '-wal', '-shm']) if (existsSync(target + ext)) renameSync(target + ext, join(dir, aside + ext));
  renameSync(staged, target);
  out.write(`restored ${backup} (${runs} runs) to ${target}${kept ? `; the state it replaced is ${join(dir, aside)}` : ''}\n`);
}
