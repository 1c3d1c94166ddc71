import { resolve } from 'node:path';
import type { Config } from '../config.js';
import type { PlanLimits } from '../plan/parse.js';
import { ReplayCache } from '../runs/idempotency.js';
import { RunLedger } from '../runs/ledger.js';
import { RunStore } from '../runs/store.js';
import { DEFAULT_SCORING, type ScoringDefaults } from '../scoring/score-groups.js';
import type { SentenceEncoder } from '../text/encoder.js';
import type { JudgeConfig } from '../metrics/judge/client.js';
import type { TurnVerifier } from '../verify/verifier.js';
import { Capability } from './capability.js';

/** What the routes need from configuration and state, resolved once. */
export interface ScoringContext {
  planLimits: PlanLimits;
  requestLimits: { maxPlansPerRequest: number };
  defaults: ScoringDefaults;
  ledger: RunLedger;
  replays: ReplayCache;
  store: RunStore;
  /** The sentence encoder of ENCODER_DIR (knowledge tracing). */
  encoder: Capability<SentenceEncoder>;
  /** The turn verifier of VERIFIER_DIR. */
  verifier: Capability<TurnVerifier>;
  /** The LLM judge, when JUDGE_BASE_URL is set. */
  judge: JudgeConfig | null;
}

export function planLimits(config: Config): PlanLimits {
  return { maxCompletionBytes: config.MAX_COMPLETION_BYTES, maxStepsPerPlan: config.MAX_STEPS_PER_PLAN };
}

export function serviceDefaults(config: Config): ScoringDefaults {
  return { ...DEFAULT_SCORING, lambda_hard: config.LAMBDA_HARD };
}

export function scoringContext(config: Config): ScoringContext {
  const store = new RunStore(config.STATE_DIR);
  const defaults = serviceDefaults(config);
  // One loaded encoder per directory: the default verifier shares ENCODER_DIR's.
  const encoders = new Map<string, Promise<SentenceEncoder>>();
  const encoderAt = (dir: string): Promise<SentenceEncoder> => {
    const key = resolve(dir);
    let e = encoders.get(key);
    if (!e) {
      // Imported on first use: onnxruntime-node and the tokenizers cost start-up time and memory.
      e = import('../text/encoder.js').then(({ SentenceEncoder }) =>
        SentenceEncoder.fromDirectory(key, { cacheSize: config.ENCODER_CACHE_SIZE, batchSize: config.ENCODER_BATCH_SIZE }),
      );
      encoders.set(key, e);
    }
    return e;
  };
  return {
    planLimits: planLimits(config),
    requestLimits: { maxPlansPerRequest: config.MAX_PLANS_PER_REQUEST },
    defaults,
    ledger: new RunLedger(store, defaults),
    replays: new ReplayCache(config.REPLAY_CACHE_BYTES),
    store,
    encoder: new Capability('sentence encoder', () => encoderAt(config.ENCODER_DIR)),
    judge: config.JUDGE_BASE_URL
      ? { baseUrl: config.JUDGE_BASE_URL, model: config.JUDGE_MODEL, apiKey: config.JUDGE_API_KEY, concurrency: config.JUDGE_CONCURRENCY, timeoutMs: config.JUDGE_TIMEOUT_MS, retries: config.JUDGE_RETRIES }
      : null,
    verifier: new Capability('turn verifier', () => import('../verify/verifier.js').then(({ loadVerifier }) => loadVerifier(config.VERIFIER_DIR, encoderAt))),
  };
}
