import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ConfigSchema } from '../../src/config.js';
import { scoringContext } from '../../src/http/context.js';
import { tempStateDir } from '../support/app.js';

t.test('the sentence encoder is chosen by ENCODER_DIR and loaded once, on first use', async (t) => {
  const byo = fileURLToPath(new URL('../fixtures/tiny-encoder', import.meta.url));
  const ctx = scoringContext(ConfigSchema.parse({ STATE_DIR: tempStateDir(), ENCODER_DIR: byo, ENCODER_CACHE_SIZE: '5' }));
  t.teardown(() => ctx.store.close());
  const first = ctx.encoder.get();
  t.equal(ctx.encoder.get(), first, 'one loader per service');
  const encoder = await first;
  t.match(encoder.manifest, { name: 'tiny-encoder', pooling: 'mean' });
  t.equal((await encoder.embed(['the tutor explains']))[0]!.length, 8);

  const defaults = scoringContext(ConfigSchema.parse({ STATE_DIR: tempStateDir() }));
  t.teardown(() => defaults.store.close());
  t.match((await defaults.encoder.get()).manifest, { name: 'use-lite', pooling: 'model', max_tokens: 128 });
});
