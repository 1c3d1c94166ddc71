// A pool worker's entry: piscina calls the default export with each task.
import { move, transferableSymbol, valueSymbol } from 'piscina';
import * as tasks from '../tasks/index.js';
import { arrive, untilGathered } from './gather.js';
import { waitWhileHeld } from './hold.js';

// Piscina imports this module before the worker takes tasks, so a replacement worker is ready only with its models.
await tasks.preload();

export type TaskName = {
  [K in keyof typeof tasks]: (typeof tasks)[K] extends (input: never, stop: () => boolean) => Promise<unknown> ? K : never;
}[keyof typeof tasks];

/** A task of a round run once in every worker (gather.ts). */
export interface Round {
  cells: Int32Array;
  workers: number;
  limitMs: number;
}

interface Message {
  name: TaskName;
  input: unknown;
  /** `cancel[0]` turns 1 when the request behind the task is abandoned (see pool.ts). */
  cancel: Int32Array;
  /** A test's (hold.ts). */
  hold?: Int32Array;
  round?: Round;
}

export default async function run({ name, input, cancel, hold, round }: Message): Promise<unknown> {
  if (round) arrive(round.cells);
  if (hold) await waitWhileHeld(hold, cancel);
  let out: unknown;
  try {
    // biome-ignore lint/performance/noDynamicNamespaceImportAccess: a worker runs whichever task it is sent, by name
    out = await (tasks[name] as (input: unknown, stop: () => boolean) => Promise<unknown>)(input, () => Atomics.load(cancel, 0) === 1);
  } finally {
    if (round) await untilGathered(round.cells, round.workers, cancel, round.limitMs);
  }
  const moved = typeof out === 'object' && out !== null ? tasks.transfers.get(out) : undefined;
  return moved ? move({ [transferableSymbol]: moved, [valueSymbol]: out as object }) : out;
}
