// Closing terminates the workers, and terminating one inside onnxruntime aborts the whole process: a
// replacement loading its models must hold the close back. The delays cover the replacement's start-up
// (0.3–1.2 s here). Without the wait, an earlier form of this test (seven delays, after the other pool
// tests in one file) aborted in 3 of 3 runs, and a form with four delays, alone, in none of 3: whether a
// close lands inside a model load depends on the machine's load, so this test catches the abort often,
// not always; model-flags.test.ts holds the protocol itself.
import t from 'tap';
import { VerifyTurnRequestSchema } from '../../../src/contracts/verify-turn.js';
import { appMetric, example, testApp, until } from '../../support/app.js';

t.test('closing while a replacement worker loads its models ends cleanly', async (t) => {
  for (const delay of [500, 700, 850, 950, 1100]) {
    const app = await testApp({ WORKERS: 2, IDLE_RSS_MB: 1 });
    t.equal((await app.inject({ method: 'POST', url: '/verify-turn', payload: example(VerifyTurnRequestSchema) })).statusCode, 200);
    await until('a worker retired', async () => (await appMetric(app, 'tutor_pool_workers_replaced_total')) >= 1);
    await new Promise((r) => setTimeout(r, delay));
    await app.close();
    t.pass(`closed ${delay} ms after the first retirement`);
  }
});
