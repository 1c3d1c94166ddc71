import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../common/errors.js';
import type { Config } from '../config.js';

class RateLimited extends ServiceError {
  override name = 'RateLimited';
  readonly statusCode = 429;
  constructor(message: string) {
    super('rate_limited', message);
  }
}

/** Browser access (CORS), security headers, and per-caller rate limits; before any route is registered. */
export async function registerProtection(app: FastifyInstance, config: Config): Promise<void> {
  const origins = config.CORS_ORIGINS.split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
  if (origins.length > 0) {
    // A preflight carries no Authorization header by design, so it must not need a key.
    app.addHook('onRoute', (route) => {
      if ([route.method].flat().includes('OPTIONS')) route.config = { ...route.config, scope: 'open' };
    });
    await app.register(cors, {
      origin: origins.includes('*') ? '*' : origins,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
      allowedHeaders: ['authorization', 'content-type', 'content-encoding', 'idempotency-key'],
      exposedHeaders: ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
      maxAge: 600,
      // An OPTIONS request that is not a preflight (no Access-Control-Request-Method) is answered like any
      // other request (405 with Allow), not with the plugin's plain-text 400.
      strictPreflight: false,
    });
  }
  await app.register(helmet, {
    contentSecurityPolicy: {
      // Helmet's defaults, less upgrade-insecure-requests: the service is often reached over plain HTTP
      // inside a cluster, where upgrading Swagger UI's requests to HTTPS would break it.
      directives: { upgradeInsecureRequests: null },
    },
  });
  if (config.RATE_LIMIT_MAX > 0) {
    await app.register(rateLimit, {
      max: config.RATE_LIMIT_MAX,
      timeWindow: config.RATE_LIMIT_WINDOW_MS,
      // Per key when keys are configured (after every onRequest hook, the key check included), else per
      // client address; before the body is read.
      hook: 'preParsing',
      keyGenerator: (req) => req.keyId ?? req.ip,
      allowList: (req) => req.routeOptions.config.scope === 'open',
      errorResponseBuilder: (_req, ctx) =>
        new RateLimited(`over ${ctx.max} requests per ${config.RATE_LIMIT_WINDOW_MS} ms (RATE_LIMIT_MAX, RATE_LIMIT_WINDOW_MS): retry after ${ctx.after}`),
    });
  }
}
