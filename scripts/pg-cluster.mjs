// A throwaway PostgreSQL cluster: initdb in a temporary directory, a free port, as the `postgres` user when
// run as root (PostgreSQL refuses root). Used by with-postgres.mjs for the suite's shared cluster and by
// the chaos tests, which kill and restart their own.
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

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
  throw new Error(
    'The run-state tests need PostgreSQL: install its server binaries (Debian: apt-get install -y postgresql) or set TEST_POSTGRES_URL to a database the tests may create databases in.',
  );
}

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });

/**
 * Creates and starts a cluster. `stop`, `start` and `pid` control it; `remove` stops it (immediate) and
 * deletes its directory. fsync is off: nothing here must survive a power loss, and start-up is faster.
 */
export async function startCluster() {
  const bin = binDir();
  const root = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'pg-test-'));
  if (root) {
    const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(dir, Number(uid.stdout), Number(gid.stdout));
  }
  const as = (tool, toolArgs) => {
    const r = root
      ? spawnSync('runuser', ['-u', 'postgres', '--', join(bin, tool), ...toolArgs], { encoding: 'utf8' })
      : spawnSync(join(bin, tool), toolArgs, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${tool} failed (${r.status}): ${r.stderr || r.stdout}`);
    return r.stdout;
  };
  const port = await freePort();
  const data = join(dir, 'data');
  as('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const cluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dataDir: data,
    start: () => as('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', options, 'start']),
    stop: (mode = 'fast') => as('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']),
    restart: (mode = 'fast') => as('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-m', mode, '-w', '-o', options, 'restart']),
    /** The postmaster's process id, or null when it is not running. */
    pid: () => {
      const r = spawnSync('head', ['-1', join(data, 'postmaster.pid')], { encoding: 'utf8' });
      return r.status === 0 && /^\d+$/.test(r.stdout.trim()) ? Number(r.stdout.trim()) : null;
    },
    remove: () => {
      try {
        if (cluster.pid() !== null) as('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  cluster.start();
  return cluster;
}
