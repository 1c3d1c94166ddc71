import { Worker } from 'node:worker_threads';
import type { FitOptions, FitResult, ResponseRow } from './em.js';

/** A fit the input made impossible (e.g. `order` on some rows only): the caller's error, not ours. */
export class FitInputError extends Error {}

// EM over a large log takes seconds of CPU: it runs on a worker thread so the event loop keeps answering,
// one fit at a time so a burst of fits cannot starve the rest of the service of both cores.
let queue: Promise<unknown> = Promise.resolve();

/**
 * The compiled fit-worker.js next to this file; under tsx (tests, scripts), whose loader a worker does not
 * inherit, a module that registers tsx and then imports the .ts source.
 */
function workerEntry(): URL {
  if (!import.meta.url.endsWith('.ts')) return new URL('./fit-worker.js', import.meta.url);
  const source = new URL('./fit-worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  return new URL(`data:text/javascript,${encodeURIComponent(`import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(source)});`)}`);
}

export function fitInWorker(rows: readonly ResponseRow[], options: FitOptions): Promise<[string, FitResult][]> {
  const run = queue.then(
    () =>
      new Promise<[string, FitResult][]>((resolve, reject) => {
        const worker = new Worker(workerEntry(), { workerData: { rows, options } });
        worker.once('message', (m: { ok: true; fits: [string, FitResult][] } | { ok: false; error: string; range: boolean }) => {
          if (m.ok) resolve(m.fits);
          else reject(m.range ? new FitInputError(m.error) : new Error(m.error));
        });
        worker.once('error', reject);
        worker.once('exit', (code) => {
          if (code !== 0) reject(new Error(`fit worker exited with code ${code}`));
        });
      }),
  );
  queue = run.catch(() => undefined);
  return run;
}
