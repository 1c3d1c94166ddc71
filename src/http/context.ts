import type { Config } from '../config.js';
import type { PlanLimits } from '../plan/parse.js';
import { ReplayCache } from '../runs/idempotency.js';
import { RunLedger } from '../runs/ledger.js';
import { RunStore } from '../runs/store.js';
import { DEFAULT_SCORING, type ScoringDefaults } from '../scoring/score-groups.js';
import type { SentenceEncoder } from '../text/encoder.js';

/** What the routes need from configuration and state, resolved once. */
export interface ScoringContext {
  planLimits: PlanLimits;
  requestLimits: { maxPlansPerRequest: number };
  defaults: ScoringDefaults;
  ledger: RunLedger;
  replays: ReplayCache;
  store: RunStore;
  /** The sentence encoder of ENCODER_DIR, loaded on first use. */
  encoder: () => Promise<SentenceEncoder>;
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
  let encoder: Promise<SentenceEncoder> | undefined;
  return {
    planLimits: planLimits(config),
    requestLimits: { maxPlansPerRequest: config.MAX_PLANS_PER_REQUEST },
    defaults,
    ledger: new RunLedger(store, defaults),
    replays: new ReplayCache(config.REPLAY_CACHE_BYTES),
    store,
    // Imported on first use too: onnxruntime-node and the tokenizers cost start-up time and memory.
    encoder: () =>
      (encoder ??= import('../text/encoder.js').then(({ SentenceEncoder }) =>
        SentenceEncoder.fromDirectory(config.ENCODER_DIR, { cacheSize: config.ENCODER_CACHE_SIZE, batchSize: config.ENCODER_BATCH_SIZE }),
      )),
  };
}
