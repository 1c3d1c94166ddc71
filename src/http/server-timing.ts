import type { FastifyInstance } from 'fastify';
import { serverTiming, Timings } from '../common/timings.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The stages of this request the handler timed; `read` and `total` are timed here. */
    timings: Timings;
  }
}

/**
 * A Server-Timing header on every response that passes Fastify's hooks (all but the raw 400s to malformed
 * HTTP and to a URL that cannot be decoded): `read` (the body received, parsed and validated), the stages
 * the handler timed (/score-plan: `judge`, `store`, `compose`), and `total` (request to response headers),
 * so that a caller sees where a slow answer's time went on its own side of the wire.
 */
export function installServerTiming(app: FastifyInstance): void {
  app.decorateRequest('timings', null as unknown as Timings);
  app.addHook('onRequest', async (req) => {
    req.timings = new Timings();
  });
  app.addHook('preHandler', async (req, reply) => {
    req.timings.add('read', reply.elapsedTime);
  });
  app.addHook('onSend', async (req, reply, payload) => {
    reply.header('server-timing', serverTiming([...req.timings.entries(), ['total', reply.elapsedTime]]));
    return payload;
  });
}
