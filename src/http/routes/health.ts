import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { VersionsSchema } from '../../contracts/results.js';
import { VERSIONS } from '../../scoring/versions.js';
import type { Capability } from '../capability.js';

export interface Readiness {
  ready: boolean;
  reason: string;
}

const HealthSchema = z.object({ status: z.literal('ok'), uptime_s: z.number(), versions: VersionsSchema }).meta({ id: 'Health' });
const StatusSchema = z.object({ ready: z.boolean(), reason: z.string() });
const ReadySchema = StatusSchema.extend({
  capabilities: z
    .record(z.string(), StatusSchema)
    .describe('Parts that need a model, each with its own state. One that failed to load answers 503 with this reason; the rest of the service stays up'),
}).meta({ id: 'Readiness' });

export const healthRoutes = (readiness: Readiness, capabilities: Record<string, Capability<unknown>>): FastifyPluginAsyncZod =>
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
          summary: 'Readiness: the plan scorer passed its start-up self-check and the service is not shutting down',
          description: '`ready` is about the core (plan scoring, runs); each model-backed capability reports its own state.',
          response: { 200: ReadySchema, 503: ReadySchema },
        },
      },
      async (_req, reply) =>
        reply.code(readiness.ready ? 200 : 503).send({
          ...readiness,
          capabilities: Object.fromEntries(Object.entries(capabilities).map(([name, c]) => [name, c.status()])),
        }),
    );
  };
