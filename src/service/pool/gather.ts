// A round of tasks, one per worker: each task keeps its worker until every task of the round has reached a
// worker, so that piscina, which hands a task to whichever worker is free, cannot give one worker two of them.

/** Cell 0: the round's tasks that have reached a worker. */
export const gathering = (): Int32Array => new Int32Array(new SharedArrayBuffer(4));

export function arrive(cells: Int32Array): void {
  Atomics.add(cells, 0, 1);
  Atomics.notify(cells, 0);
}

/**
 * Resolves once `workers` tasks have arrived, the task is cancelled, or `limitMs` passed (a worker kept by
 * a long request, or one that died: the round then misses it, and that worker loads on first use instead).
 */
export async function untilGathered(cells: Int32Array, workers: number, cancel: Int32Array, limitMs: number): Promise<void> {
  const end = performance.now() + limitMs;
  for (;;) {
    const arrived = Atomics.load(cells, 0);
    const left = end - performance.now();
    if (arrived >= workers || Atomics.load(cancel, 0) === 1 || left <= 0) return;
    // Woken by the next arrival; the slice bounds how late a cancellation is seen.
    await Atomics.waitAsync(cells, 0, arrived, Math.min(left, 100)).value;
  }
}
