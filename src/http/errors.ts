import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ErrorCode, ErrorResponse } from '../contracts/errors.js';
import { jsonPath } from '../common/json-path.js';
import { IdempotencyConflict } from '../runs/idempotency.js';
import { InvalidRunConfig, RunNotFound, RunQuotaExceeded } from '../runs/ledger.js';
import { StateDamaged, StoreUnavailable } from '../runs/store.js';
import { AccessDenied } from './access.js';
import { CapabilityUnavailable } from './capability.js';
import { RateLimited } from './protection.js';
import { invalidBodyMessage, type BodyIssue } from './json-body.js';
import { ClientGone, DeadlineExceeded, Overloaded, TaskRefused, WorkerOutOfMemory } from './work/pool.js';

/** A request the service cannot act on, with the fields at fault (400). */
export class InvalidRequest extends Error {
  override name = 'InvalidRequest';
  constructor(
    message: string,
    readonly issues: BodyIssue[],
  ) {
    super(message);
  }
}

interface HttpError {
  status: number;
  code: ErrorCode;
  message: string;
  issues?: BodyIssue[];
  /** Worth retrying in a second: sent as Retry-After. */
  retry?: boolean;
}

// Fastify's (and @fastify/compress's) own client errors, by their code.
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_CP_ERR_INVALID_CONTENT_ENCODING: 'unsupported_encoding',
  FST_CP_ERR_INVALID_CONTENT: 'invalid_encoding',
};

const TRANSPORT_CODES = new Set<ErrorCode>(Object.values(FASTIFY_CODES));

/** What the transport errors should say: what to send instead, and which setting bounds it. */
function transportMessage(code: ErrorCode, request: FastifyRequest, bodyLimit: number): string | undefined {
  switch (code) {
    case 'body_too_large':
      return `the body is over the ${bodyLimit}-byte limit (BODY_LIMIT_BYTES; counted after decompression): send fewer items per request, or raise BODY_LIMIT_BYTES`;
    case 'unsupported_media_type':
      return `send the body as JSON with content-type: application/json (got ${request.headers['content-type'] || 'no content-type'})`;
    case 'unsupported_encoding':
      return `content-encoding ${request.headers['content-encoding']} is not supported: send the body uncompressed, gzip or deflate`;
    case 'invalid_encoding':
      return `the body could not be decompressed as ${request.headers['content-encoding']}`;
    default:
      return undefined;
  }
}

/** The one mapping from what went wrong to its HTTP answer; null for our own bugs (500). */
function httpError(err: unknown, request: FastifyRequest, bodyLimit: number): HttpError | null {
  if (err instanceof InvalidRequest || err instanceof InvalidRunConfig || (err instanceof TaskRefused && err.failure === 'invalid-body')) {
    return { status: 400, code: 'invalid_request', message: err.message, issues: err.issues };
  }
  if (hasZodFastifySchemaValidationErrors(err)) {
    const issues = err.validation.map((v) => ({
      path: jsonPath(
        v.instancePath
          .split('/')
          .slice(1)
          .filter((seg) => seg !== '')
          .map((seg) => (/^\d+$/.test(seg) ? Number(seg) : seg)),
      ),
      message: v.message ?? 'invalid',
    }));
    return { status: 400, code: 'invalid_request', message: invalidBodyMessage(issues, err.validationContext), issues };
  }
  if (err instanceof TaskRefused && err.failure === 'invalid-json') return { status: 400, code: 'invalid_json', message: err.message, issues: err.issues };
  if (err instanceof RateLimited) return { status: 429, code: 'rate_limited', message: err.message };
  if (err instanceof AccessDenied) return { status: err.status, code: err.status === 401 ? 'unauthorized' : 'forbidden', message: err.message };
  if (err instanceof RunQuotaExceeded) return { status: 403, code: 'run_quota', message: err.message };
  if (err instanceof RunNotFound) return { status: 404, code: 'run_not_found', message: err.message };
  if (err instanceof IdempotencyConflict) return { status: 409, code: 'idempotency_conflict', message: err.message };
  // Nobody reads this answer; the status keeps the log line honest.
  if (err instanceof ClientGone) return { status: 499, code: 'client_closed', message: err.message };
  if (err instanceof Overloaded) return { status: 503, code: 'overloaded', message: `overloaded: ${err.message}; retry later`, retry: true };
  if (err instanceof StoreUnavailable)
    return { status: 503, code: 'store_unavailable', message: `${err.message}; nothing was recorded, retry later`, retry: true };
  if (err instanceof StateDamaged) return { status: 503, code: 'state_damaged', message: err.message };
  if (err instanceof CapabilityUnavailable || (err instanceof TaskRefused && err.failure === 'unavailable')) {
    return { status: 503, code: 'capability_unavailable', message: err.message };
  }
  if (err instanceof WorkerOutOfMemory) return { status: 503, code: 'worker_out_of_memory', message: err.message };
  if (err instanceof DeadlineExceeded)
    return { status: 504, code: 'deadline_exceeded', message: `${err.message} (REQUEST_DEADLINE_MS, or options.deadline_ms if lower)` };
  const fastify = err as Partial<FastifyError>;
  if (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    const code = FASTIFY_CODES[fastify.code ?? ''] ?? 'invalid_request';
    return { status: fastify.statusCode, code, message: transportMessage(code, request, bodyLimit) ?? fastify.message ?? 'bad request' };
  }
  return null;
}

/** Every client error is a 4xx with a JSON body naming the offending field; only our own bugs are 500s. */
export function installErrorHandler(app: FastifyInstance, bodyLimit: number, allowedMethods: (method: string, url: string) => string[]): void {
  const noRoute = (request: FastifyRequest, reply: FastifyReply) => {
    const allowed = allowedMethods(request.method, request.url);
    if (allowed.length > 0) {
      const message = `${request.method} is not allowed on ${request.url.split('?')[0]}; allowed: ${allowed.join(', ')}`;
      return reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send({ statusCode: 405, error: 'Method Not Allowed', code: 'method_not_allowed', message } satisfies ErrorResponse);
    }
    return reply
      .code(404)
      .send({ statusCode: 404, error: 'Not Found', code: 'route_not_found', message: `no route ${request.method} ${request.url}` } satisfies ErrorResponse);
  };
  app.setErrorHandler((err, request, reply) => {
    const mapped = httpError(err, request, bodyLimit);
    // Fastify reads the body of a request it has no route for: what is wrong is the route, not the body.
    if (request.is404 && mapped && TRANSPORT_CODES.has(mapped.code)) return noRoute(request, reply);
    if (!mapped) request.log.error({ err }, 'unhandled error');
    const { status, code, message, issues, retry } = mapped ?? { status: 500, code: 'internal' as const, message: 'internal error' };
    if (retry) reply.header('retry-after', '1');
    if (status === 401) reply.header('www-authenticate', 'Bearer');
    const body: ErrorResponse = { statusCode: status, error: STATUS_CODES[status] ?? 'Client Closed Request', code, message, ...(issues ? { issues } : {}) };
    return reply.code(status).send(body);
  });
  app.setNotFoundHandler(noRoute);
}
