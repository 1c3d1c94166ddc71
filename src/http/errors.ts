import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ErrorResponse } from '../contracts/errors.js';
import { jsonPath } from '../plan/violations.js';
import { InvalidRunConfig, RunNotFound } from '../runs/ledger.js';
import { StoreUnavailable } from '../runs/store.js';
import { CapabilityUnavailable } from './capability.js';
import { ClientGone, DeadlineExceeded, Overloaded, TaskRefused, WorkerOutOfMemory } from './work/pool.js';

export class RequestError extends Error {
  constructor(
    message: string,
    readonly issues: { path: string; message: string }[],
  ) {
    super(message);
  }
}

/** Every client error is a 4xx with a JSON body naming the offending field; only our own bugs are 500s. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | RequestError | InvalidRunConfig | RunNotFound | CapabilityUnavailable, request, reply) => {
    if (err instanceof RequestError || err instanceof InvalidRunConfig) {
      return reply.code(400).send({ statusCode: 400, error: 'Bad Request', message: err.message, issues: err.issues } satisfies ErrorResponse);
    }
    if (err instanceof RunNotFound) {
      return reply.code(404).send({ statusCode: 404, error: 'Not Found', message: `no run "${err.message}"` } satisfies ErrorResponse);
    }
    if (err instanceof Overloaded) {
      return reply.code(503).header('retry-after', '1').send({ statusCode: 503, error: 'Service Unavailable', message: `overloaded: ${err.message}; retry later` } satisfies ErrorResponse);
    }
    if (err instanceof DeadlineExceeded) {
      return reply.code(504).send({ statusCode: 504, error: 'Gateway Timeout', message: `${err.message} (REQUEST_DEADLINE_MS, or options.deadline_ms if lower)` } satisfies ErrorResponse);
    }
    if (err instanceof ClientGone) {
      // Nobody reads this answer; the status keeps the log line honest.
      return reply.code(499).send({ statusCode: 499, error: 'Client Closed Request', message: err.message } satisfies ErrorResponse);
    }
    if (err instanceof StoreUnavailable) {
      return reply.code(503).header('retry-after', '1').send({ statusCode: 503, error: 'Service Unavailable', message: `${err.message}; nothing was recorded, retry later` } satisfies ErrorResponse);
    }
    if (err instanceof CapabilityUnavailable || err instanceof WorkerOutOfMemory || (err instanceof TaskRefused && err.failure === 'unavailable')) {
      return reply.code(503).send({ statusCode: 503, error: 'Service Unavailable', message: err.message } satisfies ErrorResponse);
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const issues = err.validation.map((v) => ({
        path: jsonPath(v.instancePath.split('/').slice(1).filter((seg) => seg !== '').map((seg) => (/^\d+$/.test(seg) ? Number(seg) : seg))),
        message: v.message ?? 'invalid',
      }));
      const where = issues[0] ? `${issues[0].path}: ${issues[0].message}` : 'invalid request';
      return reply
        .code(400)
        .send({ statusCode: 400, error: 'Bad Request', message: `request ${err.validationContext ?? 'body'} is invalid — ${where}`, issues } satisfies ErrorResponse);
    }
    const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) request.log.error({ err }, 'unhandled error');
    const body: ErrorResponse = {
      statusCode: status,
      error: status === 500 ? 'Internal Server Error' : (err.name === 'FastifyError' ? 'Bad Request' : err.name) || 'Bad Request',
      message: status === 500 ? 'internal error' : err.message,
    };
    return reply.code(status).send(body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ statusCode: 404, error: 'Not Found', message: `no route ${request.method} ${request.url}` } satisfies ErrorResponse),
  );
}
