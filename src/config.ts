import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DEFAULT_PLAN_LIMITS, type PlanLimits } from './plan/parse.js';
import { RewardProfileSchema } from './contracts/gaming.js';
import { DEFAULT_RUN_CONFIG } from './contracts/runs.js';

// proxy-addr's names for address ranges, or an address with an optional prefix length.
function isProxyAddress(a: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(a)) return true;
  const [ip = '', bits, ...rest] = a.split('/');
  const family = isIP(ip);
  if (family === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

// A request may carry MAX_PLANS_PER_REQUEST plans, so the default body limit makes room for that many: each
// plan's share is well above a realistic plan's JSON escaped inside its completion (bench/realistic-plans.ts).
const DEFAULT_MAX_PLANS = 4096;
const PLAN_BODY_BYTES = 8 * 1024;

/** The capabilities /ready reports, by name: READY_REQUIRES may name any of them. */
export const READY_CAPABILITIES = ['verify_turn', 'trace_knowledge', 'meteor'] as const;

const int = (def: number) => z.coerce.number().int().positive().default(def);

// Every setting has a working default: `npm start` needs no environment at all.
export const ConfigSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(8080).describe('listen port (`0` picks a free one)'),
    HOST: z
      .string()
      .default('127.0.0.1')
      .describe('listen address; the default serves this machine only, `0.0.0.0` every interface (then API keys, or `ALLOW_ANONYMOUS`, are required)'),
    API_KEYS: z
      .string()
      .default('')
      .describe(
        '`scope:key,scope:key`, scopes `read` (GET routes, `/metrics`), `score` (read + compute routes), `admin` (score + changing runs); sent as `Authorization: Bearer <key>`; unset: no keys',
      ),
    API_KEYS_FILE: z.string().min(1).optional().describe('a file of `scope:key` lines (`#` comments), added to `API_KEYS`: keys mounted as secrets'),
    ALLOW_ANONYMOUS: z
      .stringbool()
      .default(false)
      .describe('`true`: serve without keys on a non-loopback `HOST` (otherwise the service refuses to start there)'),
    CORS_ORIGINS: z.string().default('').describe('comma-separated origins whose browser apps may call the API (`*`: any); unset: no cross-origin access'),
    RATE_LIMIT_MAX: z.coerce
      .number()
      .int()
      .min(0)
      .default(0)
      .describe(
        'requests per `RATE_LIMIT_WINDOW_MS` per key (per client address without a valid key) → 429 with `Retry-After`; `0`: no limit. Probes are exempt. On PostgreSQL (`STATE_URL`) the replicas count together, in the database; on SQLite each process counts on its own, in memory, and a restart resets the counts',
      ),
    RATE_LIMIT_WINDOW_MS: int(60_000).describe('the rate-limit window: fixed, starting at a caller’s first request in it'),
    TRUST_PROXY: z
      .string()
      .default('')
      .refine((v) => v.trim() === '' || v.split(',').every((a) => isProxyAddress(a.trim())), {
        message: 'comma-separated addresses and CIDR ranges (e.g. 10.0.0.0/8)',
      })
      .describe(
        'the proxies in front (load balancer, ingress) whose `X-Forwarded-For` names the client, for per-address rate limits and logs, and whose `X-Forwarded-Proto` says whether it was reached over HTTPS; their own connections are not capped per address: comma-separated addresses or CIDR ranges (or `loopback`, `linklocal`, `uniquelocal`); unset: the connection’s own address',
      ),
    HEADERS_TIMEOUT_MS: int(10_000).describe('longest a client may take to send the request headers; the socket is then closed'),
    REQUEST_TIMEOUT_MS: int(60_000).describe('longest a client may take to send a whole request, body included (a body that never ends is cut → 408)'),
    BODY_IDLE_TIMEOUT_MS: int(10_000).describe(
      'longest a request body may go without a byte arriving; the request is then answered 408 `request_timeout` and its connection closed (a body that keeps trickling is cut by `REQUEST_TIMEOUT_MS`)',
    ),
    MAX_BODIES_PER_ADDRESS: int(32).describe(
      'slow request bodies (still arriving 1 s after their headers) from one client address (behind `TRUST_PROXY`, the `X-Forwarded-For` client) at most; past it the body that turned slow last is dropped, answered 429 `too_many_bodies` and its connection closed, so that a client sending bodies that never end cannot hold the connections others need. A burst of small requests is never slow. While half of `MAX_CONNECTIONS` are open, a request from an address with this many bodies under way is refused at once from its headers',
    ),
    KEEP_ALIVE_TIMEOUT_MS: int(72_000).describe('how long an idle keep-alive connection stays open (keep it above the load balancer’s idle timeout)'),
    MAX_CONNECTIONS: int(1024).describe(
      'open connections at most; at the cap a new one closes the longest-idle keep-alive connection, and when every one has a request under way it waits unread until one closes (a few more are let in for `/health` and `/ready` alone); past `MAX_WAITING_CONNECTIONS` waiting ones it is answered 503 `too_many_connections` and closed',
    ),
    MAX_WAITING_CONNECTIONS: int(8192).describe(
      'connections that may wait, unread, for a place under `MAX_CONNECTIONS` or `MAX_CONNECTIONS_PER_ADDRESS` (a trainer sends thousands of one-sample requests at once); past it a new connection is answered 503 `too_many_connections`. Each waiting one holds a file descriptor',
    ),
    MAX_CONNECTIONS_PER_ADDRESS: int(256).describe(
      'open connections from one client address at most (past it, as at `MAX_CONNECTIONS`: its own longest-idle one is closed, or the new one waits for one of them to close); connections from a `TRUST_PROXY` address are not counted per address, since every client behind the proxy arrives from it',
    ),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('pino level: `fatal` … `trace`, `silent`'),
    BODY_LIMIT_BYTES: int(DEFAULT_MAX_PLANS * PLAN_BODY_BYTES).describe(
      `request body limit → 413; the default leaves ${PLAN_BODY_BYTES / 1024} KiB of JSON to each of \`MAX_PLANS_PER_REQUEST\` plans (raise it with that limit)`,
    ),
    MAX_JSON_DEPTH: int(64).describe('nesting depth of the request body → 400 with the path'),
    MAX_PLANS_PER_REQUEST: int(DEFAULT_MAX_PLANS).describe('completions per request, all groups together → 400'),
    MAX_COMPLETION_BYTES: int(DEFAULT_PLAN_LIMITS.maxCompletionBytes).describe('longer completion text is gated `plan_too_large`'),
    MAX_STEPS_PER_PLAN: int(DEFAULT_PLAN_LIMITS.maxStepsPerPlan).describe('a plan with more steps is gated `plan_too_large`'),
    LAMBDA_HARD: z.coerce.number().min(0).default(DEFAULT_RUN_CONFIG.lambda_hard).describe('default λ_hard (a request may override it)'),
    REWARD_PROFILE: RewardProfileSchema.default(DEFAULT_RUN_CONFIG.reward_profile).describe(
      'reward profile of new runs and of stateless requests: `paper` (PersonalPlan as published) or `guarded` (credited only for what the plan says about the question, capped where a gaming signal fires); a run or a request may set its own',
    ),
    STATE_DIR: z.string().min(1).default('./state').describe('where `runs.sqlite` (run configuration, weights, EMA, open steps, history, receipts) lives'),
    STATE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// URL')
      .optional()
      .describe('`postgres://…`: all run state in PostgreSQL instead, shared by every replica; unset: SQLite under `STATE_DIR`'),
    STATE_WAIT_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(60_000)
      .describe(
        'how long start-up waits for the PostgreSQL of `STATE_URL` while it cannot be reached (down, starting, out of connections), logging each attempt; the service listens meanwhile (`/health` 200, `/ready` 503, run requests 503 `store_unavailable`), and exits with one line if the wait runs out. `0`: do not wait',
      ),
    STATE_QUERY_TIMEOUT_MS: int(5_000).describe(
      'PostgreSQL: the longest one statement, one wait for a row lock and one wait for a pooled connection may take; a connection whose answer does not come in time (a stalled network) is destroyed, not reused, and the request answers 503 `store_unavailable` (or `outcome_unknown` for a COMMIT without an answer). Keep it well below `REQUEST_DEADLINE_MS`',
    ),
    STATE_CHECK_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(60_000)
      .describe(
        "SQLite: how often SQLite's `quick_check` reads every page of `runs.sqlite`, on a thread of its own, for damage inside the file (bytes changed under a sound header); what it finds makes the store `state_damaged` (503, `/ready` 503, nothing further acknowledged, one log line). `0`: never",
      ),
    STATE_FRESH_IF_UNUSABLE: z
      .stringbool()
      .default(false)
      .describe(
        '`true`: a `runs.sqlite` that cannot be used at start (empty, another program’s, damaged) is moved aside as `runs.sqlite.unusable-<time>` and a fresh state is started; otherwise the service refuses to start on it',
      ),
    MAX_RUNS: int(10_000).describe('runs kept at most; a request that would create another gets 403 `run_quota` (existing runs keep working)'),
    REPLAY_CACHE_BYTES: int(64 * 1024 * 1024).describe('memory for replies kept for `Idempotency-Key` retries (the receipts themselves are in the run store)'),
    ENCODER_DIR: z
      .string()
      .min(1)
      .default(fileURLToPath(new URL('../models/use-lite', import.meta.url)))
      .describe('sentence encoder directory (`tokenizer.json`, `model.onnx`, optional `manifest.json`)'),
    VERIFIER_DIR: z
      .string()
      .min(1)
      .default(fileURLToPath(new URL('../models/verifier', import.meta.url)))
      .describe(
        'turn verifier directory (`manifest.json`: `embedding-head` or `cross-encoder`, or `remote`: a model served by vLLM or text-embeddings-inference); `models/verifier-head` is the embedding head without dimension predictions',
      ),
    READY_REQUIRES: z
      .string()
      .default('')
      .refine((v) => v.split(',').every((n) => n.trim() === '' || READY_CAPABILITIES.includes(n.trim() as (typeof READY_CAPABILITIES)[number])), {
        message: `comma-separated capabilities among ${'`verify_turn`, `trace_knowledge`, `meteor`'}`,
      })
      .describe(
        'capabilities without which `/ready` answers 503 (comma-separated: `verify_turn`, `trace_knowledge`, `meteor`), e.g. `verify_turn` for a replica whose traffic is turn verification by a `remote` verifier: it then leaves the balancer while the inference server is down. Unset: each capability reports its own state and `/ready` is about the core only',
      ),
    ENCODER_CACHE_SIZE: int(10_000).describe("sentence embeddings kept in the LRU cache, per encoder (the service's and the verifier's) per worker"),
    ENCODER_BATCH_SIZE: int(32).describe('texts per ONNX run'),
    SHUTDOWN_GRACE_MS: int(10_000).describe(
      'how long SIGTERM waits for in-flight requests; work still running or queued after three quarters of it is stopped and answered 503 `shutting_down` (its client retries elsewhere), and the process exits 0 once every request is answered',
    ),
    WORKERS: z.coerce
      .number()
      .int()
      .min(0)
      .max(256)
      .default(availableParallelism())
      .describe('worker threads for CPU-bound work, one per core; `0` runs it on the main thread (debugging)'),
    MAX_QUEUE: z.coerce
      .number()
      .int()
      .min(0)
      .default(64)
      .describe('tasks that may wait for a worker; past it a request is refused at once with 503 and `Retry-After`'),
    REQUEST_DEADLINE_MS: int(30_000).describe('longest a compute request may take → 504; `options.deadline_ms` may lower it'),
    // Below 64 a replacement worker may not even boot, and piscina then stops replacing workers.
    WORKER_HEAP_MB: z.coerce
      .number()
      .int()
      .min(64)
      .default(128)
      .describe('V8 old generation per worker, at least 64; a task that needs more fails with 503 (the worker is replaced)'),
    IDLE_COLLECT_MS: int(10_000).describe(
      "how long the worker pool must rest after work before every thread runs a memory-reducing collection, giving back what the traffic grew (the next request pays for regrowing it: see docs/concurrency.md); longer than a trainer's step keeps its calls warm",
    ),
    IDLE_RSS_MB: int(1024).describe(
      'resident memory (MiB) a process may still hold after the collection of `IDLE_COLLECT_MS`: if it holds more, the workers are replaced by fresh ones, one at a time (what the collections cannot give back: malloc arenas the worker threads grew); keep it well above what the process holds at rest with its models (`process_resident_memory_bytes` on `/metrics`), or every rest replaces the workers and the request after it runs on cold ones',
    ),
    ORT_DISABLE_TELEMETRY: z
      .enum(['0', '1'])
      .default('1')
      .describe(
        'onnxruntime’s own switch, passed on to it: `1` turns off the usage telemetry that onnxruntime-node 1.30 collects on Linux and macOS (a device id under `~/.cache/Microsoft`, or `$XDG_CACHE_HOME/Microsoft`, an event database and a log file in the temp directory, events uploaded to Microsoft); `0` leaves it on, except where a CI variable such as `CI` is set, in which the runtime keeps silent anyway',
      ),
    JUDGE_BASE_URL: z
      .url()
      .optional()
      .describe(
        'API root of the optional LLM judge (`options.judge` of `/evaluate-dialogue` and of guarded `/score-plan`), any OpenAI-compatible API (vLLM, Ollama, a hosted one), e.g. `http://localhost:8000/v1`; unset: the judge is off',
      ),
    JUDGE_MODEL: z.string().min(1).default('default').describe('model name sent to the judge'),
    JUDGE_API_KEY: z.string().optional().describe('bearer token for the judge, if it needs one'),
    JUDGE_CONCURRENCY: int(4).describe('judge calls in flight per request'),
    JUDGE_TIMEOUT_MS: int(30_000).describe('timeout of one judge call'),
    JUDGE_RETRIES: z.coerce.number().int().min(0).max(10).default(2).describe('retries of a judge call on timeouts, network errors, 429 and 5xx'),
  })
  .refine((c) => c.HEADERS_TIMEOUT_MS <= c.REQUEST_TIMEOUT_MS, { message: 'must not exceed REQUEST_TIMEOUT_MS', path: ['HEADERS_TIMEOUT_MS'] })
  .refine((c) => c.BODY_IDLE_TIMEOUT_MS <= c.REQUEST_TIMEOUT_MS, { message: 'must not exceed REQUEST_TIMEOUT_MS', path: ['BODY_IDLE_TIMEOUT_MS'] });

export type Config = z.infer<typeof ConfigSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration: ${lines.join('; ')}`);
  }
  return parsed.data;
}

/** Fastify's trustProxy from TRUST_PROXY: off, or the proxies' addresses. */
export function trustProxy(config: Config): false | string[] {
  const v = config.TRUST_PROXY.trim();
  return v === '' ? false : v.split(',').map((a) => a.trim());
}

/** READY_REQUIRES as a list of capability names. */
export const readyRequires = (config: Config): string[] =>
  config.READY_REQUIRES.split(',')
    .map((n) => n.trim())
    .filter(Boolean);

/** The per-plan bounds every scoring path applies (the service, the audit CLI). */
export function planLimits(config: Config): PlanLimits {
  return { maxCompletionBytes: config.MAX_COMPLETION_BYTES, maxStepsPerPlan: config.MAX_STEPS_PER_PLAN };
}
