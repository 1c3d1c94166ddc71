// A pool worker's entry: piscina calls the default export with each task.
import { move, transferableSymbol, valueSymbol } from 'piscina';
import * as tasks from '../tasks/index.js';
import { waitWhileHeld } from './hold.js';

// Piscina imports this module before the worker takes tasks, so a replacement worker is ready only with its models.
await tasks.preload();

export type TaskName = {
  [K in keyof typeof tasks]: (typeof tasks)[K] extends (input: never, stop: () => boolean) => Promise<unknown> ? K : never;
}[keyof typeof tasks];

/** `cancel[0]` turns 1 when the request behind the task is abandoned (see pool.ts); `hold` is a test's (hold.ts). */
export default async function run({ name, input, cancel, hold }: { name: TaskName; input: unknown; cancel: Int32Array; hold?: Int32Array }): Promise<unknown> {
  if (hold) await waitWhileHeld(hold, cancel);
  // biome-ignore lint/performance/noDynamicNamespaceImportAccess: a worker runs whichever task it is sent, by name
  const out = await (tasks[name] as (input: unknown, stop: () => boolean) => Promise<unknown>)(input, () => Atomics.load(cancel, 0) === 1);
  const moved = typeof out === 'object' && out !== null ? tasks.transfers.get(out) : undefined;
  return moved ? move({ [transferableSymbol]: moved, [valueSymbol]: out as object }) : out;
}
