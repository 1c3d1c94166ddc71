import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';

/** A JSON body kept as the client's text, for a worker to read (see json-body.ts). */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * In this plugin's routes, a JSON body arrives as RawJson: not parsed, and not validated here either —
 * the worker validates it with the same schema, which the route still declares for its OpenAPI entry.
 */
export function keepJsonText(app: FastifyInstance): { validatorCompiler: FastifySchemaCompiler<unknown> } {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, new RawJson(body as string)));
  return { validatorCompiler: () => (value) => ({ value }) };
}
