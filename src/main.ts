// Checked before anything else is loaded (node-version.ts).
import './node-version.js';
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { loadConfig, planLimits, readyRequires } from './config.js';
import { serviceDefaults } from './service/context.js';
import { selfCheck } from './scoring/self-check.js';
import { ShuttingDown } from './common/errors.js';

// The share of SHUTDOWN_GRACE_MS work may use; the rest answers what is left and closes the pool and the store.
const GRACE_WORK_SHARE = 0.75;
const IDLE_CLOSE_MS = 100;

/** Start-up failures are the operator's to fix: one line naming the cause and the setting, no stack. */
async function start() {
  try {
    const config = loadConfig();
    const built = await buildApp(config);
    try {
      // A trainer's burst connects thousands at once; the kernel caps the backlog at net.core.somaxconn.
      await built.app.listen({ port: config.PORT, host: config.HOST, backlog: 4096 });
    } catch (e) {
      await built.app.close();
      const code = (e as NodeJS.ErrnoException).code;
      throw new Error(`cannot listen on ${config.HOST}:${config.PORT} (HOST, PORT): ${code ?? (e as Error).message}`);
    }
    return { config, ...built };
  } catch (e) {
    cannotStart(e);
  }
}

function cannotStart(e: unknown): never {
  process.stderr.write(`tutor-reward: cannot start: ${(e as Error).message.replaceAll(/\s*\n\s*/g, '; ')}\n`);
  process.exit(1);
}

const { config, app, readiness, capabilities, storeOpened, keyRing } = await start();
// PostgreSQL not reached yet: the port is open (liveness passes) and /ready says why not; start-up that
// gives up on it (STATE_WAIT_MS, or a database that cannot be used) ends the process with one line.
storeOpened.then(() => app.log.info('run state store ready'), cannotStart);
// WordNet (shared by the workers, cheap) and the capabilities /ready requires load in the background once
// the port is open; /ready reports each meanwhile. Another model loads in every worker when a request first
// needs it: a process that only scores plans holds no ONNX session (about 70 MB a worker).
const atStart = new Set(['meteor', ...readyRequires(config)]);
for (const [name, capability] of Object.entries(capabilities)) {
  if (!atStart.has(name)) {
    app.log.info({ capability: name }, 'capability loads on first use');
    continue;
  }
  capability.get().then(
    () => app.log.info({ capability: name }, 'capability ready'),
    (e: Error) => app.log.error({ capability: name, reason: e.message }, 'capability unavailable'),
  );
}

const check = selfCheck(planLimits(config), serviceDefaults(config));
readiness.ready = check.ok;
readiness.reason = check.ok ? 'ok' : `self-check failed: ${check.reason}`;
app.log.info({ readiness, docs: '/docs' }, 'service started');

// SIGHUP: API_KEYS_FILE (and API_KEYS) read again, e.g. after `plan-reward keys new --file`; a file that cannot
// be used leaves the keys in force as they were.
process.on('SIGHUP', () => {
  try {
    app.log.info({ keys: keyRing.reload() }, 'API keys reloaded');
  } catch (e) {
    app.log.error({ reason: (e as Error).message }, 'API keys not reloaded: the keys in force are unchanged');
  }
});

// SIGTERM, SIGINT or an uncaught error: stop taking requests, let those in flight finish (the pool and the
// run store close after them), then exit 0. Work still running or queued near the end of SHUTDOWN_GRACE_MS is
// stopped and answered 503 `shutting_down` (its client retries elsewhere) instead of being cut off at the exit.
// SIGHUP is the key reload's (above), not a shutdown.
closeWithGrace({ delay: config.SHUTDOWN_GRACE_MS, skip: ['SIGHUP'], logger: { error: (msg: unknown) => app.log.error(msg) } }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'closing after an uncaught error');
  readiness.ready = false;
  readiness.reason = 'shutting down';
  app.log.info({ signal }, 'draining in-flight requests');
  const answerTheRest = setTimeout(() => {
    app.log.warn('grace period nearly over: stopping the work left, answered 503 shutting_down');
    app.closing.abort(new ShuttingDown());
  }, config.SHUTDOWN_GRACE_MS * GRACE_WORK_SHARE);
  // A keep-alive connection whose last request was answered would hold the close open until its idle
  // timeout: each is closed as soon as it is idle.
  const closeIdle = setInterval(() => app.server.closeIdleConnections(), IDLE_CLOSE_MS);
  await app.close();
  clearTimeout(answerTheRest);
  clearInterval(closeIdle);
  app.log.info('stopped');
});
