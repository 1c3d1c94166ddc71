import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { type Config, type READY_CAPABILITIES, readyRequires, trustProxy } from './config.js';
import { startService } from './service/context.js';
import { InvalidRequest } from './common/errors.js';
import { installErrorHandler } from './http/errors.js';
import { installJsonParser } from './request-body/fastify-parsers.js';
import { depthIssue } from './request-body/json.js';
import { tidyOpenApi } from './http/openapi-tidy.js';
import { clientErrorHandler, registerTransport } from './http/transport.js';
import { limitBodies } from './http/bodies.js';
import { exposureProblem, installAccess, KeyRing, keyCounts, parseKeys } from './http/access.js';
import { registerProtection, registerRateLimit, type SharedCounts, shedWhenSaturated } from './http/protection.js';
import { manageConnections } from './http/connections.js';
import { installMetrics } from './http/metrics.js';
import { installServerTiming } from './http/server-timing.js';
import type { OpenAPIV3_1 } from 'openapi-types';
import { registerDashboard } from './http/dashboard.js';
import { healthRoutes, type Readiness } from './http/routes/health.js';
import { PRODUCT, rootRoute } from './http/routes/root.js';
import { scorePlanRoute } from './http/routes/score-plan.js';
import { openRlhfRoute } from './http/routes/openrlhf.js';
import { runRoutes } from './http/routes/runs.js';
import { validatePlanRoute } from './http/routes/validate-plan.js';
import { verifyTurnRoute } from './http/routes/verify-turn.js';
import { traceKnowledgeRoute } from './http/routes/trace-knowledge.js';
import { dialogueNextRoute } from './http/routes/dialogue-next.js';
import { evaluateRoutes } from './http/routes/evaluate.js';
import type { Capability } from './service/capability.js';
import type { ScoreSummary } from './scoring/score-groups.js';
import { SCORER_VERSION } from './scoring/versions.js';
import type { Timings } from './common/timings.js';

declare module 'fastify' {
  interface FastifyRequest {
    scoreSummary?: ScoreSummary;
  }
}

const STORE_EVENT_LINES = {
  down: 'unavailable: run requests get 503, /ready is 503, stateless scoring goes on',
  waiting: 'not reachable yet: waiting (STATE_WAIT_MS)',
  fresh: 'file unusable: started a fresh state',
} as const;

/** A request's timed stages for its log line, ms to two decimals as latency_ms. */
const stagesMs = (t: Timings) => Object.fromEntries(t.entries().map(([stage, ms]) => [stage, Number(ms.toFixed(2))]));

export interface App {
  app: FastifyInstance;
  readiness: Readiness;
  /** Settles once the run store is usable; rejects (the service cannot run) if start-up gives up on it. */
  storeOpened: Promise<void>;
  capabilities: { verify_turn: Capability<string>; trace_knowledge: Capability<string>; meteor: Capability<string> };
  /** The API keys in force; `keyRing.reload()` reads them again (main.ts, on SIGHUP). */
  keyRing: KeyRing;
}

export async function buildApp(config: Config): Promise<App> {
  const keys = parseKeys(config.API_KEYS, config.API_KEYS_FILE);
  const exposed = exposureProblem(config.HOST, keys, config.ALLOW_ANONYMOUS);
  const keyRing = new KeyRing(keys, { inline: config.API_KEYS, file: config.API_KEYS_FILE, host: config.HOST, allowAnonymous: config.ALLOW_ANONYMOUS });
  if (exposed) throw new Error(exposed);
  const app = Fastify({
    logger: { level: config.LOG_LEVEL },
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: trustProxy(config),
    clientErrorHandler,
    // Slow clients: Node checks these every connectionsCheckingInterval (30 s by default, which let a
    // half-sent header hold its socket well past headersTimeout); connections are admitted below (connections.ts).
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_MS,
    http: { headersTimeout: config.HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1_000 },
    // One log line per request, written in onResponse below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
  }).withTypeProvider<ZodTypeProvider>();
  if (keys.length === 0) app.log.info({ anonymous: true }, 'no API keys: every request is anonymous and allowed');
  else app.log.info({ keys: keyCounts(keys) }, 'API keys loaded');
  // First, so that a request any later hook refuses still says how long it took.
  installServerTiming(app);
  const crowded = manageConnections(app, {
    maxConnections: config.MAX_CONNECTIONS,
    maxPerAddress: config.MAX_CONNECTIONS_PER_ADDRESS,
    maxWaiting: config.MAX_WAITING_CONNECTIONS,
    trustProxy: trustProxy(config),
  });
  app.decorate('closing', new AbortController());
  app.setValidatorCompiler(validatorCompiler);
  // Responses are built from the zod-inferred types, so the compiler checks their shape; re-validating a
  // large response with zod at run time costs more than the scoring itself. Tests validate every response
  // against the schema instead (test/support/app.ts).
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  installErrorHandler(app, config.BODY_LIMIT_BYTES, await registerTransport(app));
  // CORS and security headers before the key check, so that a refusal still reaches a browser app; the key
  // is read, counted against the rate limit, and only then enforced, so that requests without one count too.
  await registerProtection(app, config);
  const enforceAccess = installAccess(app, keyRing);
  // Filled in once the run store is open (below): PostgreSQL counts for every replica.
  const sharedCounts: SharedCounts = {};
  await registerRateLimit(app, config, sharedCounts);
  enforceAccess();
  limitBodies(app, { maxPerAddress: config.MAX_BODIES_PER_ADDRESS, idleMs: config.BODY_IDLE_TIMEOUT_MS, crowded });
  installJsonParser(app);

  const readiness: Readiness = { ready: false, reason: 'starting' };

  app.addHook('preValidation', async (req) => {
    const deep = depthIssue(req.body, config.MAX_JSON_DEPTH);
    if (deep) throw new InvalidRequest(deep.message, deep.issues);
  });
  app.addHook('onResponse', async (req, reply) => {
    const line = {
      method: req.method,
      url: req.url,
      status: reply.statusCode,
      latency_ms: Number(reply.elapsedTime.toFixed(2)),
      ...(req.keyId ? { key: req.keyId } : {}),
    };
    if (req.scoreSummary) req.log.info({ ...line, ...req.scoreSummary, stages_ms: stagesMs(req.timings) }, 'scored');
    else if (req.url === '/health' || req.url === '/ready') req.log.debug(line, 'probe');
    else req.log.info(line, 'request');
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: PRODUCT,
        version: SCORER_VERSION,
        description:
          'Verifiable rewards for RL post-training of tutoring planners (PersonalPlan Reward-Adaptive GRPO). ' +
          'Every score comes with its components and reasons.',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      // Relative: the document is served by the service it describes, at whatever address it has.
      servers: [{ url: '/' }],
      // Declared whether or not keys are configured: a client written against the document sends one.
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'A key of API_KEYS; scopes read, score, admin' } } },
      security: [{ apiKey: [] }],
      tags: [
        { name: 'PersonalPlan', description: 'Plan rewards for GRPO' },
        { name: 'runs', description: 'Reward-Adaptive GRPO runs: adaptive weights, step accounting, history' },
        { name: 'trainers', description: 'Trainer-specific protocols' },
        { name: 'Traver', description: 'Turn-by-turn verification of candidate tutor utterances and knowledge tracing' },
        { name: 'WikiHowAgent', description: 'Pedagogic-quality evaluation of tutoring conversations and plans; the interaction manager' },
        { name: 'service', description: 'Liveness and readiness' },
      ],
    },
    transform: jsonSchemaTransform,
    transformObject: (doc) => tidyOpenApi(jsonSchemaTransformObject(doc) as OpenAPIV3_1.Document),
  });
  await app.register(swaggerUi, { routePrefix: '/docs', theme: { title: `${PRODUCT} · API docs` } });

  const ctx = await startService(config, {
    workerFailed: (err) => app.log.error({ err }, 'a pool worker failed and was replaced'),
    store: ({ kind, reason }) =>
      kind === 'up' ? app.log.info({ reason }, 'run state store is back') : app.log.warn({ reason }, `run state store ${STORE_EVENT_LINES[kind]}`),
  });
  if (ctx.store.countRequest) sharedCounts.count = ctx.store.countRequest.bind(ctx.store);
  app.addHook('onClose', async () => {
    await ctx.pool.close();
    await ctx.store.close();
  });
  const capabilities: Record<(typeof READY_CAPABILITIES)[number], Capability<string>> = {
    verify_turn: ctx.verifier,
    trace_knowledge: ctx.encoder,
    meteor: ctx.wordnet,
  };
  installMetrics(app, ctx.pool, capabilities, ctx.store);
  shedWhenSaturated(app, ctx.pool);
  await app.register(rootRoute);
  await app.register(healthRoutes(readiness, capabilities, ctx.pool, ctx.store, readyRequires(config)));
  await app.register(scorePlanRoute(ctx));
  await app.register(validatePlanRoute(ctx));
  await app.register(runRoutes(ctx));
  await app.register(openRlhfRoute(ctx));
  await app.register(verifyTurnRoute(ctx));
  await app.register(traceKnowledgeRoute(ctx));
  await app.register(dialogueNextRoute);
  await app.register(evaluateRoutes(ctx));
  await registerDashboard(app);
  return { app, readiness, capabilities, storeOpened: ctx.storeOpened, keyRing };
}
