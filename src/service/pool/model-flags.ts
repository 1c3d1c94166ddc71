// What the threads of one pool share about their models, in one SharedArrayBuffer: which models (and WordNet)
// the service has loaded (a worker that replaces another loads them before it takes work), how many workers are loading
// them now, and whether the pool is closing. Terminating a worker inside onnxruntime aborts the process
// ("terminate called after throwing an instance of 'Napi::Error'", seen when a pool closed during a
// replacement), so closing waits for those loads and no load starts once it has begun.

export type Model = 'encoder' | 'verifier' | 'wordnet';
const LOADED: Record<Model, number> = { encoder: 0, verifier: 1, wordnet: 2 };
const LOADING = 3;
const CLOSING = 4;
const HOLD = 5;

export const modelFlags = (): Int32Array => new Int32Array(new SharedArrayBuffer(6 * 4));

/** Loads running now, counted from before their closing check (tests watch it). */
export const loadsRunning = (flags: Int32Array): number => Atomics.load(flags, LOADING);

/**
 * For tests: while on, a load that has passed its closing check waits there until this is turned off or
 * the pool begins to close, so that a test can hold a worker inside its load when a request or a close comes.
 */
export function holdLoads(flags: Int32Array, on: boolean): void {
  Atomics.store(flags, HOLD, on ? 1 : 0);
}

export function markLoaded(flags: Int32Array, model: Model): void {
  Atomics.store(flags, LOADED[model], 1);
}

export const wasLoaded = (flags: Int32Array, model: Model): boolean => Atomics.load(flags, LOADED[model]) === 1;

/** Runs `load` unless the pool is closing; the close waits for it. */
export async function loadUnlessClosing(flags: Int32Array, load: () => Promise<unknown>): Promise<void> {
  // Counted before the check, and the close sets its flag before it reads the count: of the two, at
  // least one sees the other (sequentially consistent atomics).
  Atomics.add(flags, LOADING, 1);
  try {
    if (Atomics.load(flags, CLOSING) === 0) {
      while (Atomics.load(flags, HOLD) === 1 && Atomics.load(flags, CLOSING) === 0) await new Promise((r) => setTimeout(r, 5));
      await load();
    }
  } finally {
    Atomics.sub(flags, LOADING, 1);
  }
}

/**
 * Stops new loads and resolves once none runs, or after `limitMs`: a worker that died while loading never
 * counts itself out, and it is no longer in onnxruntime either.
 */
export async function closeLoads(flags: Int32Array, limitMs = 30_000): Promise<void> {
  Atomics.store(flags, CLOSING, 1);
  const end = performance.now() + limitMs;
  while (Atomics.load(flags, LOADING) !== 0 && performance.now() < end) await new Promise((r) => setTimeout(r, 10));
}
