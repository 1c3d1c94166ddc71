import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

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
