import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { loadConfig, planLimits } from './config.js';
import { serviceDefaults } from './http/context.js';
import { selfCheck } from './scoring/self-check.js';

const config = loadConfig();
const { app, readiness, capabilities } = await buildApp(config);
await app.listen({ port: config.PORT, host: config.HOST });
// Models load in the background once the port is open; /ready reports each capability meanwhile.
for (const [name, capability] of Object.entries(capabilities)) {
  capability.get().then(
    () => app.log.info({ capability: name }, 'capability ready'),
    (e: Error) => app.log.error({ capability: name, reason: e.message }, 'capability unavailable'),
  );
}

const check = selfCheck(planLimits(config), serviceDefaults(config));
readiness.ready = check.ok;
readiness.reason = check.ok ? 'ok' : `self-check failed: ${check.reason}`;
app.log.info({ readiness, docs: '/docs' }, 'service started');

// SIGTERM, SIGINT or an uncaught error: stop taking requests, let those in flight finish (the pool and the
// run store close after them), then exit; past SHUTDOWN_GRACE_MS, exit anyway.
closeWithGrace({ delay: config.SHUTDOWN_GRACE_MS, logger: { error: (msg: unknown) => app.log.error(msg) } }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'closing after an uncaught error');
  readiness.ready = false;
  readiness.reason = 'shutting down';
  app.log.info({ signal }, 'draining in-flight requests');
  await app.close();
  app.log.info('stopped');
});
