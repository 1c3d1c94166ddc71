import { buildApp } from '../../src/app.js';
import { ConfigSchema, type Config } from '../../src/config.js';

export async function testApp(overrides: Partial<Config> = {}) {
  const built = await buildApp({ ...ConfigSchema.parse({}), LOG_LEVEL: 'silent', ...overrides });
  await built.app.ready();
  built.readiness.ready = true;
  return built.app;
}
