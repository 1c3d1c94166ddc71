import { type Duplex, PassThrough } from 'node:stream';
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import { ERRORS, type ErrorCode } from '../contracts/errors.js';
import { errorBody } from './errors.js';

/** A path pattern of the router (`/runs/:id`) as a RegExp over request paths. */
const patternOf = (url: string) => new RegExp(`^${url.replaceAll(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll(/:[A-Za-z_]+/g, '[^/]+')}/?$`);

/**
 * Request transport: JSON only (Fastify's default text/plain parser would hand a JSON string to the
 * schema, which then says "expected object, received string"), gzip and deflate bodies decompressed
 * before the body limit counts them (so the limit bounds the decompressed size, and a zip bomb stops
 * there), and the methods each path allows, for 405 answers.
 */
export async function registerTransport(app: FastifyInstance): Promise<(method: string, url: string) => string[]> {
  app.removeContentTypeParser('text/plain');
  // Content-coding names are case-insensitive and x-gzip is gzip (RFC 9110 §8.4.1); identity is no coding.
  app.addHook('onRequest', async (req) => {
    const coding = req.headers['content-encoding']?.trim().toLowerCase();
    if (coding === undefined) return;
    if (coding === 'identity') delete req.headers['content-encoding'];
    else req.headers['content-encoding'] = coding === 'x-gzip' ? 'gzip' : coding;
  });
  // @fastify/compress pipes the body into its decompressor with pump, which destroys every stream of the
  // pipe when the data is not what the encoding says: the request, and with it the socket while the rest of
  // a large body was still arriving, so the client got a reset instead of the 400. It is given a stream of its
  // own to destroy; the request is left to Node, which closes the connection once the 400 is written.
  app.addHook('preParsing', async (req, _reply, payload) => {
    if (req.headers['content-encoding'] !== 'gzip' && req.headers['content-encoding'] !== 'deflate') return payload;
    const own = new PassThrough();
    payload.once('error', (e) => own.destroy(e));
    return payload.pipe(own);
  });
  // Responses are not compressed: a large one would be deflated on the event loop, which serves probes.
  await app.register(compress, { globalCompression: false, requestEncodings: ['gzip', 'deflate'] });
  const routes: Array<{ method: string; pattern: RegExp }> = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, pattern: patternOf(route.url) });
  });
  return (method, url) => {
    const path = url.split('?')[0]!;
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
    return allowed.includes(method) ? [] : allowed;
  };
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (slow, oversized or malformed headers):
 * answered with the same JSON error body, code included, as every other error.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, message]: [ErrorCode, string] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ['request_timeout', 'the request was not received in time (HEADERS_TIMEOUT_MS for its headers, REQUEST_TIMEOUT_MS in all)']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? ['headers_too_large', 'the request headers are over the 16 KiB Node.js accepts: send shorter headers']
        : ['invalid_http', `the request is not valid HTTP/1.1 (${err.code ?? 'parse error'})`];
  if (socket.writable) socket.write(rawAnswer(code, message));
  socket.destroy(err);
}

/** A whole HTTP/1.1 answer with the JSON error body of `code`, for a socket no request object owns; it closes the connection. */
export function rawAnswer(code: ErrorCode, message: string): string {
  const answer = errorBody(code, message);
  const body = JSON.stringify(answer);
  const retry = ERRORS[code].retryable ? 'Retry-After: 1\r\n' : '';
  return `HTTP/1.1 ${answer.statusCode} ${answer.error}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\n${retry}Connection: close\r\n\r\n${body}`;
}
