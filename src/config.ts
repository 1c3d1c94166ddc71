import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const int = (def: number) => z.coerce.number().int().positive().default(def);

// Every setting has a working default: `npm start` needs no environment at all.
export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT_BYTES: int(16 * 1024 * 1024),
  MAX_JSON_DEPTH: int(64),
  MAX_PLANS_PER_REQUEST: int(4096),
  MAX_COMPLETION_BYTES: int(256 * 1024),
  MAX_STEPS_PER_PLAN: int(1000),
  LAMBDA_HARD: z.coerce.number().min(0).default(10),
  STATE_DIR: z.string().min(1).default('./state'),
  // postgres://… puts all run state in PostgreSQL, shared by every replica; unset: SQLite under STATE_DIR.
  STATE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// URL').optional(),
  REPLAY_CACHE_BYTES: int(64 * 1024 * 1024),
  ENCODER_DIR: z.string().min(1).default(fileURLToPath(new URL('../models/use-lite', import.meta.url))),
  VERIFIER_DIR: z.string().min(1).default(fileURLToPath(new URL('../models/verifier', import.meta.url))),
  ENCODER_CACHE_SIZE: int(10_000),
  ENCODER_BATCH_SIZE: int(32),
  SHUTDOWN_GRACE_MS: int(10_000),
  // CPU-bound work runs on a pool of worker threads, one per core; 0 runs it on the main thread (debugging).
  WORKERS: z.coerce.number().int().min(0).max(256).default(availableParallelism()),
  // Work waiting for a worker, in tasks; past it a request is refused at once with 503 and Retry-After.
  MAX_QUEUE: z.coerce.number().int().min(0).default(64),
  REQUEST_DEADLINE_MS: int(30_000),
  // V8 old generation per worker; a task that needs more fails with 503 (the worker is replaced). Below 64 a
  // replacement worker may not even boot, and piscina then stops replacing workers.
  WORKER_HEAP_MB: z.coerce.number().int().min(64).default(128),
  // The optional LLM judge of /evaluate-dialogue: any OpenAI-compatible API (vLLM, Ollama, a hosted one).
  JUDGE_BASE_URL: z.url().optional(),
  JUDGE_MODEL: z.string().min(1).default('default'),
  JUDGE_API_KEY: z.string().optional(),
  JUDGE_CONCURRENCY: int(4),
  JUDGE_TIMEOUT_MS: int(30_000),
  JUDGE_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
});

export type Config = z.infer<typeof ConfigSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return parsed.data;
}
