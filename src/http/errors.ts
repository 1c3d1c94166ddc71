import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ErrorCode, ErrorResponse } from '../contracts/errors.js';
import { jsonPath } from '../common/json-path.js';
import { IdempotencyConflict } from '../runs/idempotency.js';
import { InvalidRunConfig, RunNotFound } from '../runs/ledger.js';
import { StoreUnavailable } from '../runs/store.js';
import { CapabilityUnavailable } from './capability.js';
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

// Fastify's own client errors, by their code.
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
};

/** The one mapping from what went wrong to its HTTP answer; null for our own bugs (500). */
function httpError(err: unknown): HttpError | null {
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
  if (err instanceof RunNotFound) return { status: 404, code: 'run_not_found', message: err.message };
  if (err instanceof IdempotencyConflict) return { status: 409, code: 'idempotency_conflict', message: err.message };
  // Nobody reads this answer; the status keeps the log line honest.
  if (err instanceof ClientGone) return { status: 499, code: 'client_closed', message: err.message };
  if (err instanceof Overloaded) return { status: 503, code: 'overloaded', message: `overloaded: ${err.message}; retry later`, retry: true };
  if (err instanceof StoreUnavailable)
    return { status: 503, code: 'store_unavailable', message: `${err.message}; nothing was recorded, retry later`, retry: true };
  if (err instanceof CapabilityUnavailable || (err instanceof TaskRefused && err.failure === 'unavailable')) {
    return { status: 503, code: 'capability_unavailable', message: err.message };
  }
  if (err instanceof WorkerOutOfMemory) return { status: 503, code: 'worker_out_of_memory', message: err.message };
  if (err instanceof DeadlineExceeded)
    return { status: 504, code: 'deadline_exceeded', message: `${err.message} (REQUEST_DEADLINE_MS, or options.deadline_ms if lower)` };
  const fastify = err as Partial<FastifyError>;
  if (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    return { status: fastify.statusCode, code: FASTIFY_CODES[fastify.code ?? ''] ?? 'invalid_request', message: fastify.message ?? 'bad request' };
  }
  return null;
}

/** Every client error is a 4xx with a JSON body naming the offending field; only our own bugs are 500s. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    const mapped = httpError(err);
    if (!mapped) request.log.error({ err }, 'unhandled error');
    const { status, code, message, issues, retry } = mapped ?? { status: 500, code: 'internal' as const, message: 'internal error' };
    if (retry) reply.header('retry-after', '1');
    const body: ErrorResponse = { statusCode: status, error: STATUS_CODES[status] ?? 'Client Closed Request', code, message, ...(issues ? { issues } : {}) };
    return reply.code(status).send(body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send({ statusCode: 404, error: 'Not Found', code: 'route_not_found', message: `no route ${request.method} ${request.url}` } satisfies ErrorResponse),
  );
}
