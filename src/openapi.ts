import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from './app.js';
import { ConfigSchema } from './config.js';

/** The OpenAPI document as generated from the route schemas with default configuration. */
export async function openApiDocument(): Promise<string> {
  const stateDir = await mkdtemp(join(tmpdir(), 'openapi-'));
  const { app } = await buildApp({ ...ConfigSchema.parse({}), LOG_LEVEL: 'silent', STATE_DIR: stateDir });
  try {
    await app.ready();
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await app.close();
    await rm(stateDir, { recursive: true, force: true });
  }
}
