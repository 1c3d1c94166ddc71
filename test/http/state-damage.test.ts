import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { EXAMPLE_SCORE_REQUEST } from '../../src/contracts/examples.js';
import { DEFAULT_RUN_CONFIG } from '../../src/contracts/runs.js';
import { SqliteRunStore } from '../../src/runs/sqlite-store.js';
import { tempStateDir, testApp } from '../support/app.js';

t.test('damage that appears while running: 503 state_damaged, the file left alone, /ready says why', async (t) => {
  const dir = tempStateDir();
  const store = new SqliteRunStore(dir);
  const weights = { struct: 0.2, pers: 0.3, ped: 0.5 };
  for (let i = 0; i < 400; i++) {
    const id = `run-${String(i).padStart(3, '0')}`;
    await store.withRun(id, (tx) =>
      tx.saveRun({
        id,
        config: { ...DEFAULT_RUN_CONFIG, w0: weights },
        weights,
        ema: null,
        last_finalized_step: null,
        finalized_steps: 0,
        created_at: 'x',
        updated_at: 'x',
      }),
    );
  }
  await store.close();
  // The service starts on a sound file (its start-up check passes) ...
  const app = await testApp({ STATE_DIR: dir });
  t.teardown(() => app.close());
  t.equal((await app.inject({ method: 'GET', url: '/ready' })).statusCode, 200);
  // ... then a page in the middle is overwritten underneath it, and another process's commit makes it
  // drop its page cache and read the file again.
  const file = join(dir, 'runs.sqlite');
  const pages = statSync(file).size / 4096;
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, Math.floor(pages / 2) * 4096);
  closeSync(fd);
  const other = new Database(file);
  other.pragma('user_version = 1');
  other.close();

  type Answer = Awaited<ReturnType<typeof app.inject>>;
  let damaged: Answer | undefined;
  for (let cursor: string | null = '', seen = 0; cursor !== null && !damaged; ) {
    const res: Answer = await app.inject({ method: 'GET', url: `/runs?limit=50${cursor ? `&cursor=${cursor}` : ''}` });
    if (res.statusCode !== 200) damaged = res;
    else {
      const page = res.json() as { runs: unknown[]; next_cursor: string | null };
      seen += page.runs.length;
      cursor = page.next_cursor;
      t.ok(seen <= 400);
    }
  }
  t.ok(damaged, 'listing every run meets the damaged page');
  t.equal(damaged!.statusCode, 503);
  t.equal(damaged!.json().code, 'state_damaged');
  t.match(damaged!.json().message, /runs\.sqlite in STATE_DIR\) is damaged: .*restore it from a backup/);
  t.notMatch(damaged!.json().message, dir, 'no path of the machine');

  const ready = await app.inject({ method: 'GET', url: '/ready' });
  t.equal(ready.statusCode, 503);
  t.match(ready.json(), { ready: false, reason: /is damaged/ });
  // From then on nothing touches the file, even runs on sound pages; scoring without a run goes on.
  const inRun = await app.inject({ method: 'POST', url: '/score-plan', payload: { ...EXAMPLE_SCORE_REQUEST, run_id: 'run-000', step: 0 } });
  t.equal(inRun.statusCode, 503);
  t.equal(inRun.json().code, 'state_damaged');
  t.equal((await app.inject({ method: 'GET', url: '/runs/run-000' })).json().code, 'state_damaged');
  t.equal((await app.inject({ method: 'POST', url: '/score-plan', payload: { ...EXAMPLE_SCORE_REQUEST, run_id: null } })).statusCode, 200, 'stateless');
  t.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
});
