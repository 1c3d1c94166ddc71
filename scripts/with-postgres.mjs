#!/usr/bin/env node
// Runs a command with TEST_POSTGRES_URL pointing at a throwaway PostgreSQL cluster: initdb in a temporary
// directory, a free port, stopped and removed when the command ends. With TEST_POSTGRES_URL already set,
// just runs the command. As root the cluster runs as the `postgres` user (PostgreSQL refuses root).
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) throw new Error('usage: with-postgres.mjs <command> [args…]');
const run = (env) => {
  const child = spawn(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
};
if (process.env.TEST_POSTGRES_URL) process.exit(await run({}));

function binDir() {
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian)
    ? readdirSync(debian)
        .filter((v) => existsSync(join(debian, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length > 0) return join(debian, versions[0], 'bin');
  const found = spawnSync('sh', ['-c', 'command -v pg_ctl'], { encoding: 'utf8' }).stdout.trim();
  if (found) return found.replace(/\/pg_ctl$/, '');
  console.error(
    'The run-state tests need PostgreSQL: install its server binaries (Debian: apt-get install -y postgresql) or set TEST_POSTGRES_URL to a database the tests may create databases in.',
  );
  process.exit(1);
}

const bin = binDir();
const root = userInfo().uid === 0;
const dir = mkdtempSync(join(tmpdir(), 'pg-test-'));
if (root) {
  const pw = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  chownSync(dir, Number(pw.stdout), Number(gid.stdout));
}
const as = (tool, toolArgs) => {
  const r = root
    ? spawnSync('runuser', ['-u', 'postgres', '--', join(bin, tool), ...toolArgs], { encoding: 'utf8' })
    : spawnSync(join(bin, tool), toolArgs, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${tool} failed (${r.status}): ${r.stderr || r.stdout}`);
};
const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});

const data = join(dir, 'data');
as('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
// fsync off: the tests kill service processes, never the database, and start-up is faster.
as('pg_ctl', [
  '-D',
  data,
  '-l',
  join(dir, 'log'),
  '-w',
  '-o',
  `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
  'start',
]);
let code = 1;
try {
  code = await run({ TEST_POSTGRES_URL: `postgres://postgres@127.0.0.1:${port}/postgres` });
} finally {
  try {
    as('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
process.exit(code);
