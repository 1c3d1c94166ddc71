import { buildApp } from '../app.js';
import { ConfigSchema } from '../config.js';

/** The OpenAPI document as generated from the route schemas with default configuration. */
export async function openApiDocument(): Promise<string> {
  const { app } = await buildApp({ ...ConfigSchema.parse({}), LOG_LEVEL: 'silent' });
  await app.ready();
  const doc = JSON.stringify(app.swagger(), null, 2) + '\n';
  await app.close();
  return doc;
}
