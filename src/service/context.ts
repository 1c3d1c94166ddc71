import { planLimits, type Config } from '../config.js';
import type { JudgeConfig } from '../metrics/judge/client.js';
import type { PlanLimits } from '../plan/parse.js';
import { ReplyCache } from '../runs/idempotency.js';
import { RunLedger } from '../runs/ledger.js';
import { openRunStore } from '../runs/open-store.js';
import type { RunStore } from '../runs/store.js';
import type { StoreEvents } from '../runs/store-health.js';
import { RunTurns } from '../runs/turns.js';
import { DEFAULT_SCORING, type ScoringDefaults } from '../scoring/score-groups.js';
import { remoteProbe } from '../verify/verifier.js';
import { Capability } from './capability.js';
import type { Model } from './pool/model-flags.js';
import { createPool, type WorkPool } from './pool/pool.js';
import { pooledSampleJudge, SampleBatches } from './score-plan/sample-batches.js';
import { PlanJudge } from './score-plan/plan-judge.js';

/** What the routes need from configuration and state, resolved once. */
export interface Service {
  planLimits: PlanLimits;
  requestLimits: { maxPlansPerRequest: number };
  defaults: ScoringDefaults;
  ledger: RunLedger;
  replies: ReplyCache;
  store: RunStore;
  /** Arrival order of each run's bookkeeping. */
  turns: RunTurns;
  /** The worker threads that run CPU-bound work. */
  pool: WorkPool;
  /** Single-sample requests gathered per run (OpenRLHF, verl). */
  samples: SampleBatches;
  /** REQUEST_DEADLINE_MS: the most any request may take. */
  deadlineMs: number;
  /** MAX_JSON_DEPTH, for bodies read on a worker. */
  maxJsonDepth: number;
  /** The sentence encoder of ENCODER_DIR (knowledge tracing, token match, tool-binding quality), by name. */
  encoder: Capability<string>;
  /** The turn verifier of VERIFIER_DIR, by name. */
  verifier: Capability<string>;
  /** WordNet, for METEOR's synonym stage (/evaluate-dialogue with a reference, /evaluate-text). */
  wordnet: Capability<string>;
  /** Settles once the run store is usable (PostgreSQL reached at start); rejects if start-up gives up on it. */
  storeOpened: Promise<void>;
  /** The LLM judge, when JUDGE_BASE_URL is set. */
  judge: JudgeConfig | null;
  /** The same judge rating plans for /score-plan's `options.judge`, with its cache of verdicts. */
  planJudge: PlanJudge | null;
}

export function serviceDefaults(config: Config): ScoringDefaults {
  return { ...DEFAULT_SCORING, lambda_hard: config.LAMBDA_HARD, reward_profile: config.REWARD_PROFILE };
}

/** What the service reports as it runs, for the operator's log. */
export interface ServiceEvents {
  workerFailed?: (e: Error) => void;
  store?: StoreEvents;
}

export async function startService(config: Config, events: ServiceEvents = {}): Promise<Service> {
  const { store, opened: storeOpened } = await openRunStore(
    {
      stateUrl: config.STATE_URL,
      stateDir: config.STATE_DIR,
      waitMs: config.STATE_WAIT_MS,
      freshIfUnusable: config.STATE_FRESH_IF_UNUSABLE,
      queryTimeoutMs: config.STATE_QUERY_TIMEOUT_MS,
      checkIntervalMs: config.STATE_CHECK_INTERVAL_MS,
    },
    events.store,
  );
  const defaults = serviceDefaults(config);
  const judge: JudgeConfig | null = config.JUDGE_BASE_URL
    ? {
        baseUrl: config.JUDGE_BASE_URL,
        model: config.JUDGE_MODEL,
        apiKey: config.JUDGE_API_KEY,
        concurrency: config.JUDGE_CONCURRENCY,
        timeoutMs: config.JUDGE_TIMEOUT_MS,
        retries: config.JUDGE_RETRIES,
      }
    : null;
  // The runtime reads its switch from the process's environment when its first session starts; a worker's
  // process.env is a copy of its own, so the main thread sets it, before any worker.
  process.env.ORT_DISABLE_TELEMETRY = config.ORT_DISABLE_TELEMETRY;
  const pool = await createPool({
    workers: config.WORKERS,
    maxQueue: config.MAX_QUEUE,
    heapMb: config.WORKER_HEAP_MB,
    idleRssMb: config.IDLE_RSS_MB,
    idleCollectMs: config.IDLE_COLLECT_MS,
    onWorkerError: events.workerFailed ?? (() => undefined),
    settings: {
      encoderDir: config.ENCODER_DIR,
      verifierDir: config.VERIFIER_DIR,
      encoderCacheSize: config.ENCODER_CACHE_SIZE,
      encoderBatchSize: config.ENCODER_BATCH_SIZE,
    },
  });
  // A model loads in each worker on its first use; loading it in every worker at start warms them all and
  // is the check /ready reports.
  const load = (which: Model) => async () => (await pool.each('loadTask', which))[0]!;
  const ledger = new RunLedger(store, { ...defaults, maxRuns: config.MAX_RUNS });
  const turns = new RunTurns();
  const limits = planLimits(config);
  return {
    planLimits: limits,
    requestLimits: { maxPlansPerRequest: config.MAX_PLANS_PER_REQUEST },
    defaults,
    ledger,
    replies: new ReplyCache(config.REPLAY_CACHE_BYTES),
    store,
    turns,
    pool,
    samples: new SampleBatches({ ledger, turns, defaults }, pooledSampleJudge(pool, limits), config.MAX_PLANS_PER_REQUEST),
    deadlineMs: config.REQUEST_DEADLINE_MS,
    maxJsonDepth: config.MAX_JSON_DEPTH,
    encoder: new Capability('sentence encoder', load('encoder'), { ENCODER_DIR: config.ENCODER_DIR }),
    verifier: new Capability(
      'turn verifier',
      load('verifier'),
      { VERIFIER_DIR: config.VERIFIER_DIR, ENCODER_DIR: config.ENCODER_DIR },
      // A remote verifier is ready while its inference server answers.
      await remoteProbe(config.VERIFIER_DIR),
    ),
    wordnet: new Capability('WordNet', load('wordnet')),
    storeOpened,
    judge,
    planJudge: judge && new PlanJudge(judge),
  };
}
