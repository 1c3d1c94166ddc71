import t from 'tap';
import { buildApp } from '../../src/app.js';
import { ConfigSchema } from '../../src/config.js';
import { tempStateDir } from '../support/app.js';

t.test('health is live at once; ready only after the self-check passes', async (t) => {
  const { app, readiness } = await buildApp({ ...ConfigSchema.parse({}), LOG_LEVEL: 'silent', STATE_DIR: tempStateDir(), WORKERS: 2 });
  t.teardown(() => app.close());
  const health = await app.inject({ method: 'GET', url: '/health' });
  t.equal(health.statusCode, 200);
  t.match(health.json(), { status: 'ok', versions: { service: String, lexicon: String, phases: String } });
  const before = await app.inject({ method: 'GET', url: '/ready' });
  t.equal(before.statusCode, 503);
  t.same(before.json(), {
    ready: false,
    reason: 'starting',
    capabilities: {
      verify_turn: { ready: false, reason: 'not loaded yet (loads on first use)' },
      trace_knowledge: { ready: false, reason: 'not loaded yet (loads on first use)' },
      meteor: { ready: false, reason: 'not loaded yet (loads on first use)' },
    },
    pool: { workers: 2, running: 0, queued: 0, max_queue: 64, saturated: false, utilization: 0 },
  });
  readiness.ready = true;
  readiness.reason = 'ok';
  t.equal((await app.inject({ method: 'GET', url: '/ready' })).statusCode, 200);
});

t.test('Swagger UI and the OpenAPI document are served', async (t) => {
  const { app } = await buildApp({ ...ConfigSchema.parse({}), LOG_LEVEL: 'silent', STATE_DIR: tempStateDir() });
  t.teardown(() => app.close());
  const ui = await app.inject({ method: 'GET', url: '/docs/' });
  t.equal(ui.statusCode, 200);
  t.match(ui.headers['content-type'], /html/);
  const doc = await app.inject({ method: 'GET', url: '/docs/json' });
  t.equal(doc.statusCode, 200);
  t.ok(doc.json().paths['/score-plan'].post);
});
