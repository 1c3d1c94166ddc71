// Closing terminates the workers, and terminating one inside onnxruntime aborts the whole process: a
// replacement loading its models must hold the close back. The test holds a replacement inside its load
// (model-flags.ts, holdLoads) until the close begins, so the close always lands there; model-flags.test.ts
// holds the protocol itself.
import t from 'tap';
import { holdLoads, loadsRunning } from '../../../src/service/pool/model-flags.js';
import { until } from '../../support/app.js';
import { testPool } from '../../support/pool.js';

t.test('closing while a replacement worker loads its models waits for the load, then ends cleanly', async (t) => {
  // IDLE_RSS_MB=1: the rest after any work collects and then replaces the workers, one at a time.
  const { pool, models } = await testPool({ idleRssMb: 1 });
  // Both workers load the verifier (and its encoder), so a replacement loads them before it takes work.
  await pool.each('loadTask', 'verifier');
  // In the same turn as the work's end, before the rest that follows it can start a replacement.
  holdLoads(models, true);
  // A collection, then a worker retired: its replacement is held inside its load (counted as replaced once ready).
  await until('a replacement worker inside its load', async () => loadsRunning(models) === 1);
  t.same([pool.collections().count, pool.collections().replaced], [1, 0], 'the rest collected and began a replacement');
  // The close lets the held load go on into onnxruntime; terminating the worker there would abort this process.
  await pool.close();
  t.equal(loadsRunning(models), 0, 'the close waited until the load had ended (a terminated load never counts itself out)');
});
