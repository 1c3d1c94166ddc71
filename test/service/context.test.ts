import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ConfigSchema } from '../../src/config.js';
import { startService } from '../../src/service/context.js';
import { tempStateDir } from '../support/app.js';

t.test('the sentence encoder is chosen by ENCODER_DIR and loaded once per service, in every worker', async (t) => {
  const byo = fileURLToPath(new URL('../fixtures/tiny-encoder', import.meta.url));
  for (const workers of ['0', '2']) {
    const ctx = await startService(ConfigSchema.parse({ STATE_DIR: tempStateDir(), ENCODER_DIR: byo, ENCODER_CACHE_SIZE: '5', WORKERS: workers }));
    t.teardown(async () => {
      await ctx.pool.close();
      ctx.store.close();
    });
    const first = ctx.encoder.get();
    t.equal(ctx.encoder.get(), first, 'one loader per service');
    t.equal(await first, 'tiny-encoder', `WORKERS=${workers}`);
  }
  const defaults = await startService(ConfigSchema.parse({ STATE_DIR: tempStateDir(), WORKERS: '1' }));
  t.teardown(async () => {
    await defaults.pool.close();
    defaults.store.close();
  });
  t.equal(await defaults.encoder.get(), 'use-lite');
});
