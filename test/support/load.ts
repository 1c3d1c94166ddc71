import { availableParallelism, loadavg } from 'node:os';

/**
 * `ms`, longer in proportion when the machine has more runnable processes than cores (the one-minute load
 * average), as scripts/with-coverage-sources.mjs scales tap's per-file timeout: a busy machine makes a wait
 * slow, not wrong.
 */
export const loadScaled = (ms: number): number => Math.round(ms * Math.max(1, loadavg()[0]! / availableParallelism()));
