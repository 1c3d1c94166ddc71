// PostgreSQL is a dependency that fails and comes back. A proxy in front of it drops connections exactly
// where a restart or a network fault would: mid-transaction, while committing, while idle. The service
// answers 503 (never 500, never an exit), says not ready, recovers by itself, and tells a client whose
// commit outcome is unknown so, and its retry with the same Idempotency-Key is recognised.
import pg from 'pg';
import t, { type Test } from 'tap';
import { EXAMPLE_SCORE_REQUEST } from '../../src/contracts/examples.js';
import { DEFAULT_RUN_CONFIG, type RunView } from '../../src/contracts/runs.js';
import { PostgresRunStore } from '../../src/runs/postgres-store.js';
import { appMetric, testApp, until } from '../support/app.js';
import { freshPostgresUrl } from '../support/stores.js';
import { startProxy, type FaultyProxy } from '../support/tcp-proxy.js';

async function proxied(t: Test): Promise<{ url: string; proxy: FaultyProxy }> {
  const url = new URL(await freshPostgresUrl());
  const proxy = await startProxy({ host: url.hostname, port: Number(url.port) });
  t.teardown(() => proxy.close());
  url.port = String(proxy.port);
  return { url: url.toString(), proxy };
}

const record = (id: string) => ({
  id,
  config: DEFAULT_RUN_CONFIG,
  weights: DEFAULT_RUN_CONFIG.w0,
  ema: null,
  last_finalized_step: null,
  finalized_steps: 0,
  created_at: 'x',
  updated_at: 'x',
});

t.test('the connection lost right after COMMIT reached the server: outcome_unknown, though it was recorded', async (t) => {
  const { url, proxy } = await proxied(t);
  const store = await PostgresRunStore.open(url);
  t.teardown(() => store.close());
  const cut = proxy.cutAfter('COMMIT\0');
  await t.rejects(
    store.withRun('r', (tx) => tx.saveRun(record('r'))),
    { code: 'outcome_unknown', message: /may or may not have been recorded. Retry with the same Idempotency-Key/ },
  );
  await cut;
  t.match(await store.getRun('r'), { id: 'r' }, 'the server had committed it');
});

t.test('connections dropped mid-transaction and while idle: 503, not ready, then back by itself', async (t) => {
  const { url, proxy } = await proxied(t);
  const app = await testApp({ STATE_URL: url });
  t.teardown(() => app.close());
  const inRun = (key: string) =>
    app.inject({ method: 'POST', url: '/score-plan', headers: { 'idempotency-key': key }, payload: { ...EXAMPLE_SCORE_REQUEST, run_id: 'r', step: 0 } });
  t.equal((await inRun('a')).statusCode, 200);

  // Dropped between the run lock and the bookkeeping: the checked-out client's 'error' event must not end
  // the process (tap fails a test on an uncaught error).
  const mid = proxy.cutAfter('pg_advisory_xact_lock');
  const lost = await inRun('b');
  await mid;
  t.equal(lost.statusCode, 503);
  t.equal(lost.json().code, 'store_unavailable');
  t.equal(lost.headers['retry-after'], '1');

  // The server goes away: idle connections die, new ones are refused.
  proxy.refuse = true;
  proxy.cut();
  const down = await inRun('b');
  t.equal(down.statusCode, 503);
  t.equal(down.json().code, 'store_unavailable');
  const ready = await app.inject({ method: 'GET', url: '/ready' });
  t.equal(ready.statusCode, 503);
  t.match(ready.json(), { ready: false, reason: /state database unavailable/ });
  t.equal(await appMetric(app, 'tutor_run_store_available{engine="postgres"}'), 0, 'operators see it');
  const stateless = await app.inject({ method: 'POST', url: '/score-plan', payload: { ...EXAMPLE_SCORE_REQUEST, run_id: null } });
  t.equal(stateless.statusCode, 200, 'scoring without a run goes on');
  t.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200);

  // Back, with no request to notice it: the probe does.
  proxy.refuse = false;
  await until('ready again', async () => (await app.inject({ method: 'GET', url: '/ready' })).statusCode === 200);
  t.equal(await appMetric(app, 'tutor_run_store_available{engine="postgres"}'), 1);
  t.equal((await inRun('b')).statusCode, 200);
  t.equal((await inRun('b')).statusCode, 200, 'a retry');
  const run = (await app.inject({ method: 'GET', url: '/runs/r' })).json() as RunView;
  t.equal(run.open_step?.requests, 2, 'a and b, each once');
});

t.test('a retry of a request whose commit outcome was unknown is recognised, not counted twice', async (t) => {
  const { url, proxy } = await proxied(t);
  const app = await testApp({ STATE_URL: url });
  t.teardown(() => app.close());
  const send = () =>
    app.inject({ method: 'POST', url: '/score-plan', headers: { 'idempotency-key': 'k' }, payload: { ...EXAMPLE_SCORE_REQUEST, run_id: 'r', step: 0 } });
  const cut = proxy.cutAfter('COMMIT\0');
  const first = await send();
  await cut;
  t.equal(first.statusCode, 503);
  t.equal(first.json().code, 'outcome_unknown');
  const again = await send();
  t.equal(again.statusCode, 200);
  const run = (await app.inject({ method: 'GET', url: '/runs/r' })).json() as RunView;
  t.same([run.open_step?.step, run.open_step?.requests], [0, 1], 'counted once');
});

// A network that stalls without closing a socket (a partition, half-open pooled connections): every database
// call ends within STATE_QUERY_TIMEOUT_MS, the stuck connections are destroyed, not reused, and the service is
// back by itself once the network is.
t.test('a stalled PostgreSQL: 503 with Retry-After within the query timeout, not ready, then back', async (t) => {
  const { url, proxy } = await proxied(t);
  const app = await testApp({ STATE_URL: url, STATE_QUERY_TIMEOUT_MS: 500 });
  t.teardown(() => app.close());
  const inRun = (key: string) =>
    app.inject({ method: 'POST', url: '/score-plan', headers: { 'idempotency-key': key }, payload: { ...EXAMPLE_SCORE_REQUEST, run_id: 's', step: 0 } });
  t.equal((await inRun('a')).statusCode, 200);
  proxy.stall = true;
  const stuck = await inRun('b');
  t.equal(stuck.statusCode, 503, stuck.body);
  t.match(stuck.json().code, /^(store_unavailable|outcome_unknown)$/);
  t.ok(Number(stuck.headers['retry-after']) > 0);
  await until('not ready while stalled', async () => (await app.inject({ method: 'GET', url: '/ready' })).statusCode === 503);
  t.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
  proxy.stall = false;
  proxy.cut(); // the stalled sockets end as the partition heals (TCP keepalive would end them later)
  await until('ready again', async () => (await app.inject({ method: 'GET', url: '/ready' })).statusCode === 200);
  t.equal((await inRun('b')).statusCode, 200);
  t.equal((await inRun('b')).statusCode, 200, 'a retry');
  const run = (await app.inject({ method: 'GET', url: '/runs/s' })).json() as RunView;
  t.equal(run.open_step?.requests, 2, 'a and b, each once: nothing lost, nothing counted twice');
});

// A replica after a failover, or default_transaction_read_only: every write is refused with SQLSTATE 25006.
t.test('a read-only PostgreSQL: 503 store_unavailable with Retry-After, not ready, and back without a restart', async (t) => {
  const url = await freshPostgresUrl();
  const db = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
  await admin.connect();
  t.teardown(() => admin.end());
  const app = await testApp({ STATE_URL: url });
  t.teardown(() => app.close());
  const inRun = (key: string) =>
    app.inject({ method: 'POST', url: '/score-plan', headers: { 'idempotency-key': key }, payload: { ...EXAMPLE_SCORE_REQUEST, run_id: 'ro', step: 0 } });
  t.equal((await inRun('a')).statusCode, 200);
  const readOnly = async (on: boolean) => {
    await admin.query(`ALTER DATABASE ${db} SET default_transaction_read_only = ${on ? 'on' : 'off'}`);
    // Sessions take the database's default when they start: the service's pooled ones are ended.
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [db]);
  };
  await readOnly(true);
  await until('a write refused as unavailable', async () => {
    const res = await inRun('b');
    return res.statusCode === 503 && res.json().code === 'store_unavailable' && Number(res.headers['retry-after']) > 0;
  });
  const ready = await app.inject({ method: 'GET', url: '/ready' });
  t.equal(ready.statusCode, 503);
  t.match(ready.json().reason, /read-only|unavailable/);
  await readOnly(false);
  await until('ready again', async () => (await app.inject({ method: 'GET', url: '/ready' })).statusCode === 200);
  t.equal((await inRun('b')).statusCode, 200);
  const run = (await app.inject({ method: 'GET', url: '/runs/ro' })).json() as RunView;
  t.equal(run.open_step?.requests, 2);
});
