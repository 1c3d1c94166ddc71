import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { Overloaded, ServiceError } from '../common/errors.js';
import type { Config } from '../config.js';
import type { WorkPool } from '../service/pool/pool.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's work runs on the worker pool: while the pool is saturated it is refused from its headers. */
    compute?: boolean;
  }
}

// Helmet's own Strict-Transport-Security value (365 days, subdomains included).
const HSTS = 'max-age=31536000; includeSubDomains';

class RateLimited extends ServiceError {
  override name = 'RateLimited';
  readonly statusCode = 429;
  constructor(message: string) {
    super('rate_limited', message);
  }
}

/** Browser access (CORS) and security headers; before any route is registered. */
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
    // Sent over HTTPS only (RFC 6797 §7.2: a browser ignores it over HTTP), below.
    strictTransportSecurity: false,
  });
  // HTTPS as the client reached it: TLS ends at the proxy, which says so in X-Forwarded-Proto, believed only
  // from a TRUST_PROXY peer.
  app.addHook('onRequest', async (req, reply) => {
    if (req.protocol === 'https') reply.header('strict-transport-security', HSTS);
  });
}

/** The run store's count of a caller's requests, shared by the replicas (PostgreSQL); set once the store is open. */
export interface SharedCounts {
  count?: (key: string, windowMs: number) => Promise<{ count: number; resetInMs: number }>;
}

/** @fastify/rate-limit's store interface over SharedCounts. */
function sharedStore(shared: SharedCounts, windowMs: number) {
  return class SharedStore {
    incr(key: string, done: (err: Error | null, res?: { current: number; ttl: number }) => void): void {
      if (!shared.count) {
        done(new Error('the run store is not open yet'));
        return;
      }
      shared.count(key, windowMs).then(
        (r) => done(null, { current: r.count, ttl: r.resetInMs }),
        (e: Error) => done(e),
      );
    }
    child(): SharedStore {
      return this;
    }
  };
}

/**
 * Per-caller rate limits: per key (the valid one the access hook read), else per client address, so that
 * requests without a valid key are counted as well; from the headers, before the body is read. Added after
 * the hook that reads the key and before the one that enforces it (installAccess). On PostgreSQL the replicas
 * count together (`shared`); a count the database cannot give lets the request through, since the
 * database being down must not stop scoring without a run. On SQLite each process counts in memory.
 */
export async function registerRateLimit(app: FastifyInstance, config: Config, shared: SharedCounts): Promise<void> {
  if (config.RATE_LIMIT_MAX === 0) return;
  // Not per route (the plugin's global mode), where its hook would run after every hook of the app, the
  // key's refusal included, and never for a path that has no route.
  await app.register(rateLimit, {
    global: false,
    max: config.RATE_LIMIT_MAX,
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    keyGenerator: (req) => req.keyId ?? req.ip,
    ...(config.STATE_URL && { store: sharedStore(shared, config.RATE_LIMIT_WINDOW_MS), skipOnError: true }),
    allowList: (req) => req.routeOptions.config.scope === 'open',
    errorResponseBuilder: (_req, ctx) =>
      new RateLimited(`over ${ctx.max} requests per ${config.RATE_LIMIT_WINDOW_MS} ms (RATE_LIMIT_MAX, RATE_LIMIT_WINDOW_MS): retry after ${ctx.after}`),
  });
  app.addHook('onRequest', app.rateLimit());
}

/**
 * Load shedding from the headers: while the worker pool is saturated, a compute route (config.compute) is
 * answered 503 before its body is read, instead of after reading and parsing it only to find the queue full.
 */
export function shedWhenSaturated(app: FastifyInstance, pool: Pick<WorkPool, 'status' | 'saturated'>): void {
  app.addHook('onRequest', async (req, reply) => {
    if (!req.routeOptions.config.compute || !pool.saturated()) return;
    const status = pool.status();
    // The body is left unread: closing the connection after the answer spares reading it only to drop it.
    reply.header('connection', 'close');
    throw new Overloaded(
      `all ${status.workers} workers are busy and ${status.queued} tasks wait (MAX_QUEUE ${status.max_queue}); refused from the request's headers, its body unread`,
    );
  });
}
