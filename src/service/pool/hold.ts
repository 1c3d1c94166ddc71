// For tests: a pool given a hold (PoolOptions.hold) sends it with each task of its long lane, and while the
// hold is on, such a task waits in its worker before it starts, keeping that worker as a long task would,
// until the hold is turned off or the task is cancelled. A test can so keep long tasks running for as long
// as it needs, without timing.
const ON = 0;
const HELD = 1;

export const taskHold = (): Int32Array => new Int32Array(new SharedArrayBuffer(2 * 4));

export function holdTasks(hold: Int32Array, on: boolean): void {
  Atomics.store(hold, ON, on ? 1 : 0);
}

/** Tasks waiting in their workers under the hold now. */
export const tasksHeld = (hold: Int32Array): number => Atomics.load(hold, HELD);

/** In the worker, before the task starts; `cancel` is its task's cancel flag (pool.ts). */
export async function waitWhileHeld(hold: Int32Array, cancel: Int32Array): Promise<void> {
  Atomics.add(hold, HELD, 1);
  try {
    while (Atomics.load(hold, ON) === 1 && Atomics.load(cancel, 0) === 0) await new Promise((r) => setTimeout(r, 5));
  } finally {
    Atomics.sub(hold, HELD, 1);
  }
}
