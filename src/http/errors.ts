import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { ServiceError } from '../common/errors.js';
import { jsonPath } from '../common/json-path.js';
import { ERRORS, type ErrorCode, type ErrorResponse, type Issue } from '../contracts/errors.js';
import { invalidBodyMessage } from '../request-body/json.js';
import { describeIssues } from '../request-body/unknown-keys.js';

interface HttpError {
  code: ErrorCode;
  message: string;
  issues?: Issue[] | undefined;
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

/** What went wrong, as a code of the error table; null for our own bugs (500). */
function httpError(err: unknown, request: FastifyRequest, bodyLimit: number): HttpError | null {
  if (err instanceof ServiceError) return { code: err.code, message: err.message, issues: err.issues };
  if (hasZodFastifySchemaValidationErrors(err)) {
    const zodIssues = err.validation.map((v) => ({
      ...(v.params as object),
      code: v.keyword,
      path: v.instancePath
        .split('/')
        .slice(1)
        .filter((seg) => seg !== '')
        .map((seg) => (/^\d+$/.test(seg) ? Number(seg) : seg)),
      message: v.message ?? 'invalid',
    }));
    const schema = (request.routeOptions.schema as Record<string, unknown> | undefined)?.[err.validationContext ?? 'body'] as z.ZodType | undefined;
    const issues = schema ? describeIssues(schema, zodIssues) : zodIssues.map((i) => ({ path: jsonPath(i.path), message: i.message }));
    return { code: 'invalid_request', message: invalidBodyMessage(issues, err.validationContext), issues };
  }
  const fastify = err as Partial<FastifyError>;
  if (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    const code = FASTIFY_CODES[fastify.code ?? ''] ?? 'invalid_request';
    return { code, message: transportMessage(code, request, bodyLimit) ?? fastify.message ?? 'bad request' };
  }
  return null;
}

/** The JSON error body of `code`, as every error answer carries it. */
export const errorBody = (code: ErrorCode, message: string, issues?: Issue[]): ErrorResponse => {
  const status = ERRORS[code].status;
  return { statusCode: status, error: STATUS_CODES[status] ?? 'Client Closed Request', code, message, ...(issues ? { issues } : {}) };
};

/** Every client error is a 4xx with a JSON body naming the offending field; only our own bugs are 500s. */
export function installErrorHandler(app: FastifyInstance, bodyLimit: number, allowedMethods: (method: string, url: string) => string[]): void {
  const noRoute = (request: FastifyRequest, reply: FastifyReply) => {
    const allowed = allowedMethods(request.method, request.url);
    if (allowed.length > 0) {
      const message = `${request.method} is not allowed on ${request.url.split('?')[0]}; allowed: ${allowed.join(', ')}`;
      return reply.code(405).header('allow', allowed.join(', ')).send(errorBody('method_not_allowed', message));
    }
    return reply.code(404).send(errorBody('route_not_found', `no route ${request.method} ${request.url}`));
  };
  app.setErrorHandler((err, request, reply) => {
    const mapped = httpError(err, request, bodyLimit);
    // Fastify reads the body of a request it has no route for: what is wrong is the route, not the body.
    if (request.is404 && mapped && TRANSPORT_CODES.has(mapped.code)) return noRoute(request, reply);
    if (!mapped) request.log.error({ err }, 'unhandled error');
    const { code, message, issues } = mapped ?? { code: 'internal' as const, message: 'internal error' };
    const { status, retryable } = ERRORS[code];
    // A refusal that knows when to come back (the rate limit's window) has set its own.
    if (retryable && !reply.hasHeader('retry-after')) reply.header('retry-after', '1');
    if (status === 401) reply.header('www-authenticate', 'Bearer');
    return reply.code(status).send(errorBody(code, message, issues));
  });
  app.setNotFoundHandler(noRoute);
}
