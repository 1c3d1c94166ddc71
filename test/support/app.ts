import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { ConfigSchema, type Config } from '../../src/config.js';
import { ErrorResponseSchema } from '../../src/contracts/errors.js';
import { ScorePlanResponseSchema } from '../../src/contracts/score-plan.js';
import { ValidatePlanResponseSchema } from '../../src/contracts/validate-plan.js';

// The service serializes with plain JSON.stringify; here every response a test receives is checked
// against its zod contract, so a drift between code and schema fails the suite.
const CONTRACTS = { '/score-plan': ScorePlanResponseSchema, '/validate-plan': ValidatePlanResponseSchema } as const;

export async function testApp(overrides: Partial<Config> = {}): Promise<FastifyInstance> {
  const built = await buildApp({ ...ConfigSchema.parse({}), LOG_LEVEL: 'silent', ...overrides });
  built.app.addHook('onSend', async (req, reply, payload) => {
    if (typeof payload !== 'string' || !payload.startsWith('{')) return payload;
    const body: unknown = JSON.parse(payload);
    const contract = reply.statusCode === 200 ? CONTRACTS[req.url as keyof typeof CONTRACTS] : reply.statusCode >= 400 ? ErrorResponseSchema : undefined;
    const checked = contract?.safeParse(body);
    if (checked && !checked.success) throw new Error(`response to ${req.url} breaks its contract: ${checked.error.message}`);
    return payload;
  });
  await built.app.ready();
  built.readiness.ready = true;
  return built.app;
}
