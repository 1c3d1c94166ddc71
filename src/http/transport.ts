import type { Duplex } from 'node:stream';
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import type { ErrorCode } from '../contracts/errors.js';
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
  const answer = errorBody(code, message);
  const body = JSON.stringify(answer);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${answer.statusCode} ${answer.error}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
