// How a task runs: skipped when its request was abandoned, and the failures a request caused turned into
// values, since an error's class does not survive the thread boundary.
import { ServiceError } from '../../common/errors.js';
import type { ErrorCode, Issue } from '../../contracts/errors.js';
import { TextTooLong } from '../../metrics/text-scores.js';

/** A failure the request caused, carried across the thread boundary by its code (an error's class does not cross). */
export interface TaskFailure {
  failure: Exclude<ErrorCode, 'internal'>;
  message: string;
  issues?: Issue[] | undefined;
}

/** The buffers of a task's result that cross back to the main thread moved rather than copied (worker.ts). */
export const transfers = new WeakMap<object, ArrayBuffer[]>();

/** True once the request behind a task is abandoned (deadline passed, client gone). */
export type Stop = () => boolean;

/**
 * Runs a task, unless its request was abandoned while it waited, turning the errors a request caused into
 * values; `textsAt` is the request's field that a text too long to score is reported at.
 */
export async function task<T>(stop: Stop, f: () => T | Promise<T>, textsAt?: string): Promise<T | TaskFailure> {
  if (stop()) return { failure: 'client_closed', message: 'abandoned before it started' };
  try {
    return await f();
  } catch (e) {
    if (e instanceof TextTooLong && textsAt) {
      return { failure: 'invalid_request', message: `texts too long to score: ${e.message}`, issues: [{ path: textsAt, message: e.message }] };
    }
    if (e instanceof ServiceError) return { failure: e.code, message: e.message, issues: e.issues };
    throw e;
  }
}

export const utf8 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
