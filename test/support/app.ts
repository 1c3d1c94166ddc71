import { rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { buildApp } from '../../src/app.js';
import { loadScaled } from './load.js';
import { ConfigSchema, type Config } from '../../src/config.js';
import { ErrorResponseSchema } from '../../src/contracts/errors.js';
import { ReadySchema } from '../../src/http/routes/health.js';
import { OpenRlhfResponseSchema } from '../../src/contracts/openrlhf.js';
import { HistoryRowSchema, RunViewSchema } from '../../src/contracts/runs.js';
import { ScorePlanResponseSchema, ScorePlanRewardsResponseSchema } from '../../src/contracts/score-plan.js';
import { ValidatePlanResponseSchema } from '../../src/contracts/validate-plan.js';
import { VerifyTurnResponseSchema } from '../../src/contracts/verify-turn.js';
import { DialogueNextResponseSchema } from '../../src/contracts/dialogue-next.js';
import { EvaluatePlanResponseSchema } from '../../src/contracts/evaluate-plan.js';
import { EvaluateDialogueResponseSchema, EvaluateTextCorpusResponseSchema, EvaluateTextResponseSchema } from '../../src/contracts/evaluate.js';
import { FitResponseSchema, TraceKnowledgeResponseSchema } from '../../src/contracts/trace-knowledge.js';
import { tempDir } from './temp.js';

// The service serializes with plain JSON.stringify; here every JSON response a test receives is checked
// against its zod contract, so a drift between code and schema fails the suite.
const CONTRACTS: Record<string, z.ZodType> = {
  'POST /score-plan': z.union([ScorePlanResponseSchema, ScorePlanRewardsResponseSchema]),
  'POST /validate-plan': ValidatePlanResponseSchema,
  'POST /openrlhf/reward': OpenRlhfResponseSchema,
  'POST /verify-turn': VerifyTurnResponseSchema,
  'POST /trace-knowledge': TraceKnowledgeResponseSchema,
  'POST /trace-knowledge/fit': FitResponseSchema,
  'POST /dialogue/next': DialogueNextResponseSchema,
  'POST /evaluate-dialogue': EvaluateDialogueResponseSchema,
  'POST /evaluate-plan': EvaluatePlanResponseSchema,
  'POST /evaluate-text': EvaluateTextResponseSchema,
  'POST /evaluate-text/corpus': EvaluateTextCorpusResponseSchema,
  'GET /ready': ReadySchema,
  'GET /runs': z.object({ runs: z.array(RunViewSchema), next_cursor: z.string().nullable() }),
  'GET /runs/:id': RunViewSchema,
  'PUT /runs/:id': RunViewSchema,
  'POST /runs/:id/finalize': z.object({ finalized: HistoryRowSchema.nullable(), run: RunViewSchema }),
  'GET /runs/:id/history': z.object({ run_id: z.string(), total: z.number(), offset: z.number(), limit: z.number(), rows: z.array(HistoryRowSchema) }),
};

export function tempStateDir(): string {
  return tempDir('tutor-reward-test-');
}

/**
 * An app on a fresh state directory (removed on close) unless STATE_DIR is given. The work runs on the main
 * thread (WORKERS=0) unless a test asks for workers: booting a worker and loading its models cost more than
 * most route tests. The pool itself is tested where it matters (test/service/pool/, deadlines, probes during
 * heavy work), and test/service/score-plan/parity.test.ts holds every route's answers equal under both.
 */
export async function testApp(overrides: Partial<Config> = {}): Promise<FastifyInstance> {
  const stateDir = overrides.STATE_DIR ?? tempStateDir();
  const built = await buildApp({ ...ConfigSchema.parse({}), WORKERS: 0, LOG_LEVEL: 'silent', STATE_DIR: stateDir, ...overrides });
  built.app.addHook('onSend', async (req, reply, payload) => {
    if (typeof payload !== 'string' || !payload.startsWith('{')) return payload;
    const body: unknown = JSON.parse(payload);
    const route = `${req.method} ${req.routeOptions.url ?? ''}`;
    // /ready answers its own shape with 503 too (not ready, or the pool saturated).
    const contract = reply.statusCode < 300 || route === 'GET /ready' ? CONTRACTS[route] : reply.statusCode >= 400 ? ErrorResponseSchema : undefined;
    const checked = contract?.safeParse(body);
    if (checked && !checked.success) throw new Error(`response to ${route} breaks its contract: ${checked.error.message}`);
    return payload;
  });
  if (overrides.STATE_DIR === undefined) built.app.addHook('onClose', async () => rmSync(stateDir, { recursive: true, force: true }));
  await built.app.ready();
  await built.storeOpened;
  built.readiness.ready = true;
  return built.app;
}

interface PoolStatus {
  running: number;
  queued: number;
}

/**
 * /ready's body once its pool matches `pred`, or after `ms`: how a test waits for another request to
 * have reached the pool (a fixed pause can be outrun by a loaded machine).
 */
export async function readyWhen(base: string, pred: (pool: PoolStatus) => boolean, ms = 10_000): Promise<{ pool: PoolStatus }> {
  const end = performance.now() + loadScaled(ms);
  for (;;) {
    const body = (await (await fetch(`${base}/ready`)).json()) as { pool: PoolStatus };
    if (pred(body.pool) || performance.now() > end) return body;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The value of one series (name and labels, as printed) in a /metrics text; throws when it is absent. */
export function metricValue(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  if (line === undefined) throw new Error(`no ${series} in /metrics`);
  return Number(line.slice(series.length + 1));
}

/** One series of the app's /metrics. */
export const appMetric = async (app: FastifyInstance, series: string): Promise<number> =>
  metricValue((await app.inject({ method: 'GET', url: '/metrics' })).body, series);

/** Polls `ok` every 50 ms until it holds; throws naming `what` after `ms` (load-scaled). */
export async function until(what: string, ok: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const limit = loadScaled(ms);
  for (const end = performance.now() + limit; performance.now() < end; await new Promise((r) => setTimeout(r, 50))) if (await ok()) return;
  throw new Error(`${what}: not within ${limit} ms`);
}

/** The first example a request schema carries (the one Swagger UI shows). */
export const example = (schema: { meta(): Record<string, unknown> | undefined }): object => (schema.meta()!.examples as object[])[0]!;
