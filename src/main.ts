import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { planLimits, serviceDefaults } from './http/context.js';
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

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  readiness.ready = false;
  readiness.reason = 'shutting down';
  app.log.info({ signal }, 'draining in-flight requests');
  const force = setTimeout(() => {
    app.log.error('shutdown grace period elapsed, exiting');
    process.exit(1);
  }, config.SHUTDOWN_GRACE_MS);
  force.unref();
  await app.close();
  app.log.info('stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
