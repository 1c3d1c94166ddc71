// Three replicas on one PostgreSQL that is killed (kill -9), restarted (pg_ctl restart -m fast) and has
// its connections terminated (pg_terminate_backend) while a trainer's requests are in flight. No replica
// exits, none answers 500; while the database is down they answer 503 and /ready 503 and go on scoring
// without a run; they recover by themselves; and with the client retrying under its Idempotency-Keys, the
// run ends exactly as one process given the same requests in order ends it.
import pg from 'pg';
import t from 'tap';
import { startCluster } from '../../scripts/pg-cluster.mjs';
import { EXAMPLE_SCORE_REQUEST } from '../../src/contracts/examples.js';
import type { HistoryRow } from '../../src/contracts/runs.js';
import { tempStateDir, until } from '../support/app.js';
import { startService, type Service } from '../support/service.js';

const STEPS = 12;
const PARTS = 3;
const CONFIG = { t_warm: 2, t_refresh: 3, alpha: 0.25 };
const body = (step: number, part: number) => ({
  ...EXAMPLE_SCORE_REQUEST,
  run_id: 'r',
  step,
  groups: EXAMPLE_SCORE_REQUEST.groups.map((g) => ({ ...g, id: `p${part}`, query: `${g.query} (${step}.${part})` })),
});

const cluster = await startCluster();
t.teardown(() => cluster.remove());

/** Statuses the client met on the way, by code: 500s would be bugs. */
const met = new Map<string, number>();

/** A trainer's client: retries 503s and dropped connections with the same key, on the next replica. */
async function send(replicas: Service[], step: number, part: number): Promise<void> {
  const end = performance.now() + 120_000;
  for (let attempt = 0; performance.now() < end; attempt++) {
    const base = replicas[(part + attempt) % replicas.length]!.base;
    try {
      const res = await fetch(`${base}/score-plan`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': `${step}.${part}` },
        body: JSON.stringify(body(step, part)),
      });
      const answer = (await res.json()) as { code?: string };
      if (res.status === 200) return;
      met.set(`${res.status} ${answer.code}`, (met.get(`${res.status} ${answer.code}`) ?? 0) + 1);
      if (res.status !== 503) throw new Error(`step ${step} part ${part}: HTTP ${res.status} ${JSON.stringify(answer)}`);
    } catch (e) {
      if (!(e instanceof TypeError)) throw e;
      met.set('connection error', (met.get('connection error') ?? 0) + 1);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`step ${step} part ${part}: not accepted within 120 s`);
}

const json = async <T>(base: string, path: string, init?: RequestInit) => (await (await fetch(base + path, init)).json()) as T;
const configure = (base: string) => fetch(`${base}/runs/r`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(CONFIG) });
const history = async (base: string) => (await json<{ rows: HistoryRow[] }>(base, '/runs/r/history')).rows.map((r) => ({ ...r, finalized_at: '' }));

t.test('kill -9, a fast restart and terminated connections under three replicas', async (t) => {
  // The reference: one process on SQLite, every request in order, nothing failing.
  const solo = await startService({ STATE_DIR: tempStateDir(), WORKERS: '1' });
  await configure(solo.base);
  for (let step = 0; step < STEPS; step++) for (let part = 0; part < PARTS; part++) await send([solo], step, part);
  await fetch(`${solo.base}/runs/r/finalize`, { method: 'POST' });
  const reference = await history(solo.base);
  solo.child.kill('SIGKILL');
  met.clear();

  const replicas: Service[] = [];
  for (let i = 0; i < 3; i++) replicas.push(await startService({ STATE_DIR: tempStateDir(), STATE_URL: cluster.url, WORKERS: '1' }));
  t.teardown(() => {
    for (const r of replicas) r.child.kill('SIGKILL');
  });
  await configure(replicas[0]!.base);

  const everyReplica = (what: string, ok: (r: Service) => Promise<boolean>) =>
    until(what, async () => (await Promise.all(replicas.map(ok))).every(Boolean), 60_000);
  const readyIs = (status: number) => everyReplica(`/ready ${status} on every replica`, async (r) => (await fetch(`${r.base}/ready`)).status === status);

  /** While the database is down: 503 for runs, /ready 503, stateless scoring and /health as usual. */
  const whileDown = async (label: string) => {
    await readyIs(503);
    for (const r of replicas) {
      const inRun = await fetch(`${r.base}/score-plan`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...EXAMPLE_SCORE_REQUEST, run_id: 'other' }),
      });
      t.equal(inRun.status, 503, `${label}: a run request`);
      t.equal(inRun.headers.get('retry-after'), '1');
      t.equal(((await inRun.json()) as { code: string }).code, 'store_unavailable');
      const stateless = await fetch(`${r.base}/score-plan`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...EXAMPLE_SCORE_REQUEST, run_id: null }),
      });
      t.equal(stateless.status, 200, `${label}: scoring without a run`);
      t.equal((await fetch(`${r.base}/health`)).status, 200);
    }
  };

  const faults: Record<number, () => Promise<void>> = {
    3: async () => {
      process.kill(cluster.pid()!, 'SIGKILL');
      await whileDown('after kill -9');
      // Its backends notice the postmaster's death and exit; the new one starts once they have.
      await until('PostgreSQL started again', async () => {
        try {
          cluster.start();
          return true;
        } catch {
          return false;
        }
      });
    },
    6: async () => void cluster.restart('fast'),
    9: async () => {
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname IS NOT NULL');
      await admin.end();
    },
  };
  for (let step = 0; step < STEPS; step++) {
    const parts = Array.from({ length: PARTS }, (_, part) => send(replicas, step, part));
    await faults[step]?.();
    await Promise.all(parts);
  }
  await readyIs(200);
  await fetch(`${replicas[1]!.base}/runs/r/finalize`, { method: 'POST' });

  t.same(
    replicas.map((r) => r.child.exitCode),
    [null, null, null],
    'no replica exited',
  );
  t.comment(`statuses met on the way: ${JSON.stringify([...met])}`);
  t.ok(met.size > 0, 'the faults were met');
  t.notOk(
    [...met.keys()].some((k) => k.startsWith('5') && !k.startsWith('503')),
    `only 503s and dropped connections on the way: ${JSON.stringify([...met])}`,
  );
  t.same(await history(replicas[2]!.base), reference, 'every acknowledged request counted once: the history of the run without faults');
  for (const r of replicas)
    t.ok(
      r.lines.some((l) => l.msg === 'run state store is back'),
      'each replica logged its recovery',
    );
});
