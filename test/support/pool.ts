import { ConfigSchema } from '../../src/config.js';
import { modelFlags } from '../../src/service/pool/model-flags.js';
import { createPool, type PoolOptions, type WorkPool } from '../../src/service/pool/pool.js';

/**
 * A worker pool on the configured models without an app around it, with model flags the test holds
 * (model-flags.ts: it can watch the workers' loads and hold them), resting `idleCollectMs` after work.
 */
export async function testPool(o: Partial<Omit<PoolOptions, 'settings' | 'models'>> = {}): Promise<{ pool: WorkPool; models: Int32Array }> {
  const c = ConfigSchema.parse({});
  const models = modelFlags();
  const pool = await createPool({
    workers: 2,
    maxQueue: c.MAX_QUEUE,
    heapMb: c.WORKER_HEAP_MB,
    idleRssMb: c.IDLE_RSS_MB,
    idleCollectMs: 20,
    onWorkerError: () => undefined,
    settings: { encoderDir: c.ENCODER_DIR, verifierDir: c.VERIFIER_DIR, encoderCacheSize: c.ENCODER_CACHE_SIZE, encoderBatchSize: c.ENCODER_BATCH_SIZE },
    ...o,
    models,
  });
  return { pool, models };
}

/** A signal that never aborts. */
export const never = (): AbortSignal => new AbortController().signal;

/** `pool`, counting the tasks of one name handed to it; `idle` stands in for its own count when given. */
export function countingPool(pool: WorkPool, name: string, idle?: () => number): { pool: WorkPool; tasks: () => number } {
  let tasks = 0;
  const counted: WorkPool = {
    ...pool,
    idle: idle ?? (() => pool.idle()),
    run: (task, input, signal, transfer) => {
      if (task === name) tasks++;
      return pool.run(task, input, signal, transfer);
    },
  };
  return { pool: counted, tasks: () => tasks };
}
