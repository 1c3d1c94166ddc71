// A worker's memory: a full collection of its heap, or the worker itself ended and replaced.
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isMainThread, threadId } from 'node:worker_threads';
import type { Stop } from './task.js';

const started = Date.now();
/**
 * Ends this worker thread, whose heap and malloc arenas then go back to the system at once; piscina starts
 * a fresh worker in its place. A worker started after `round` (ms since the epoch) is already fresh and stays.
 */
export async function retireTask(round: number, _stop: Stop): Promise<'fresh'> {
  if (isMainThread) throw new Error('retireTask ends a worker thread; the main thread has none to end');
  if (started > round) return 'fresh';
  process.exit(0);
}

// V8's memory-reducing collection (the one it runs under memory pressure): besides the full collection it
// shrinks the young generation back to its smallest, which a plain gc() leaves at the size traffic grew
// it to (on the main thread 128 MiB after 64×8 traffic on a large machine).
const MEMORY_REDUCING = { type: 'major', execution: 'sync', flavor: 'last-resort' } as const;
let fullCollection: ((options: typeof MEMORY_REDUCING) => void) | undefined;
/**
 * A memory-reducing collection of this thread's heap, with the heap's size before and after it and its
 * young generation's after it, bytes, and the thread it ran in. V8 returns a heap's freed pages to the system only after a full collection,
 * and an idle pool worker runs none.
 */
export async function collectTask(_input: null, _stop: Stop): Promise<{ before: number; after: number; young: number; thread: number }> {
  if (!fullCollection) {
    // The flag turned on at run time exposes `gc` to contexts made after it: no --expose-gc in `npm start`.
    setFlagsFromString('--expose-gc');
    fullCollection = runInNewContext('gc') as typeof fullCollection;
  }
  const before = getHeapStatistics().total_heap_size;
  fullCollection!(MEMORY_REDUCING);
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
  return { before, after: getHeapStatistics().total_heap_size, young, thread: threadId };
}
