// Worker-thread entry of fitInWorker: fits, posts the result back, exits.
import { parentPort, workerData } from 'node:worker_threads';
import { fitBySkill, type FitOptions, type ResponseRow } from './em.js';

const { rows, options } = workerData as { rows: ResponseRow[]; options: FitOptions };
try {
  parentPort!.postMessage({ ok: true, fits: [...fitBySkill(rows, options)] });
} catch (e) {
  parentPort!.postMessage({ ok: false, error: (e as Error).message, range: e instanceof RangeError });
}
