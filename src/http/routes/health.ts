import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { VersionsSchema } from '../../contracts/results.js';
import { VERSIONS } from '../../scoring/versions.js';

export interface Readiness {
  ready: boolean;
  reason: string;
}

const HealthSchema = z.object({ status: z.literal('ok'), uptime_s: z.number(), versions: VersionsSchema }).meta({ id: 'Health' });
const ReadySchema = z.object({ ready: z.boolean(), reason: z.string() }).meta({ id: 'Readiness' });

export const healthRoutes = (readiness: Readiness): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/health',
      { schema: { tags: ['service'], summary: 'Liveness: the process is up', response: { 200: HealthSchema } } },
      async () => ({ status: 'ok' as const, uptime_s: process.uptime(), versions: VERSIONS }),
    );
    app.get(
      '/ready',
      {
        schema: {
          tags: ['service'],
          summary: 'Readiness: the scorer passed its start-up self-check and the service is not shutting down',
          response: { 200: ReadySchema, 503: ReadySchema },
        },
      },
      async (_req, reply) => reply.code(readiness.ready ? 200 : 503).send(readiness),
    );
  };
