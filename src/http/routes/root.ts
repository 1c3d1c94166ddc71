import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

/** The product's name, as the OpenAPI document, Swagger UI and this index give it (the dashboard's pages too). */
export const PRODUCT = 'Tutor reward service';

const IndexSchema = z
  .object({
    service: z.literal(PRODUCT),
    dashboard: z.literal('/dashboard/').describe('Runs, the verifier, knowledge traces and plan graphs in a browser'),
    docs: z.literal('/docs').describe('Swagger UI'),
    openapi: z.literal('/docs/json').describe('The OpenAPI document'),
    health: z.literal('/health'),
    ready: z.literal('/ready'),
  })
  .meta({ id: 'Index' });

const INDEX: z.infer<typeof IndexSchema> = {
  service: PRODUCT,
  dashboard: '/dashboard/',
  docs: '/docs',
  openapi: '/docs/json',
  health: '/health',
  ready: '/ready',
};

/** `GET /`: a browser (its Accept names text/html) goes to the dashboard, any other client gets the index. */
export const rootRoute: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/',
    {
      config: { scope: 'open' },
      schema: {
        operationId: 'getIndex',
        security: [],
        tags: ['service'],
        summary: 'Where to start: a browser is sent to the dashboard, an API client gets the service’s addresses',
        response: {
          200: IndexSchema.describe('The addresses to start from (any Accept but text/html)'),
          302: z.null().describe('To /dashboard/, for a browser (Accept names text/html)'),
        },
      },
    },
    async (req, reply) => (/\btext\/html\b/i.test(req.headers.accept ?? '') ? reply.redirect('/dashboard/') : INDEX),
  );
};
