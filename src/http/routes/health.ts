import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { VersionsSchema } from '../../contracts/results.js';
import { VERSIONS } from '../../scoring/versions.js';
import type { RunStore } from '../../runs/store.js';
import type { Capability } from '../../service/capability.js';
import type { WorkPool } from '../../service/pool/pool.js';

export interface Readiness {
  ready: boolean;
  reason: string;
}

const HealthSchema = z.object({ status: z.literal('ok'), uptime_s: z.number(), versions: VersionsSchema }).meta({ id: 'Health' });
const StatusSchema = z.object({ ready: z.boolean(), reason: z.string() });
export const ReadySchema = StatusSchema.extend({
  capabilities: z
    .record(z.string(), StatusSchema)
    .describe('Parts that need a model, each with its own state. One that failed to load answers 503 with this reason; the rest of the service stays up'),
  pool: z
    .object({
      workers: z.number().int().describe('Worker threads for CPU-bound work (WORKERS; 0: the main thread)'),
      running: z.number().int().describe('Tasks running on a worker'),
      queued: z.number().int().describe('Tasks waiting for a worker'),
      max_queue: z.number().int().describe('MAX_QUEUE: past it new work is refused with 503 and Retry-After'),
      saturated: z.boolean().describe('Every worker busy and the queue full: /ready answers 503 so a load balancer routes elsewhere'),
      utilization: z.number().describe("Share of the pool's capacity used since start"),
    })
    .describe('The worker pool'),
}).meta({ id: 'Readiness' });

export const healthRoutes =
  (
    readiness: Readiness,
    capabilities: Record<string, Capability<unknown>>,
    pool: WorkPool,
    store: RunStore,
    required: readonly string[] = [],
  ): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/health',
      {
        config: { scope: 'open' },
        schema: { operationId: 'getHealth', security: [], tags: ['service'], summary: 'Liveness: the process is up', response: { 200: HealthSchema } },
      },
      async () => ({ status: 'ok' as const, uptime_s: process.uptime(), versions: VERSIONS }),
    );
    app.get(
      '/ready',
      {
        config: { scope: 'open' },
        schema: {
          operationId: 'getReady',
          security: [],
          tags: ['service'],
          summary:
            'Readiness: the plan scorer passed its start-up self-check, the run state is sound and reachable, the service is not shutting down and its work queue is not full',
          description:
            '`ready` is about the core (plan scoring, runs), the pool and the capabilities READY_REQUIRES names; every model-backed capability reports its own state.',
          response: { 200: ReadySchema, 503: ReadySchema },
        },
      },
      async (_req, reply) => {
        const status = pool.status();
        const [problem, states] = await Promise.all([
          store.check(),
          Promise.all(Object.entries(capabilities).map(async ([name, c]) => [name, await c.check()] as const)),
        ]);
        // READY_REQUIRES: a capability the replica's traffic needs counts as the core does.
        const missing = states.find(([name, c]) => required.includes(name) && !c.ready);
        const state = !readiness.ready
          ? readiness
          : problem
            ? { ready: false, reason: problem }
            : missing
              ? { ready: false, reason: `${missing[0]} (READY_REQUIRES) is not ready: ${missing[1].reason}` }
              : status.saturated
                ? { ready: false, reason: `saturated: ${status.queued} tasks wait for ${status.workers} workers (MAX_QUEUE=${status.max_queue})` }
                : readiness;
        return reply.code(state.ready ? 200 : 503).send({
          ...state,
          capabilities: Object.fromEntries(states),
          pool: status,
        });
      },
    );
  };
