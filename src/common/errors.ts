import type { ErrorCode, Issue } from '../contracts/errors.js';

/**
 * A failure with its code in the error table (contracts/errors.ts), which gives its HTTP status and whether
 * it is worth retrying. Plain data apart from the class, so a worker thread can send it back as a value.
 */
export class ServiceError extends Error {
  override name = 'ServiceError';
  constructor(
    readonly code: Exclude<ErrorCode, 'internal'>,
    message: string,
    readonly issues?: Issue[],
  ) {
    super(message);
  }
}

/** A request the service cannot act on, with the fields at fault (400). */
export class InvalidRequest extends ServiceError {
  override name = 'InvalidRequest';
  constructor(message: string, issues: Issue[]) {
    super('invalid_request', message, issues);
  }
}

/** The service is shutting down and its grace period is nearly over: the request's work was stopped. */
export class ShuttingDown extends ServiceError {
  override name = 'ShuttingDown';
  constructor() {
    super(
      'shutting_down',
      'the service is shutting down: this request was stopped before its grace period ran out; nothing of it was recorded, retry (another replica takes it)',
    );
  }
}

/** The request's deadline passed; its work was stopped. */
export class DeadlineExceeded extends ServiceError {
  override name = 'DeadlineExceeded';
  constructor(readonly deadlineMs: number) {
    super(
      'deadline_exceeded',
      `the request's deadline of ${deadlineMs} ms passed; its work was stopped and nothing of it was recorded (REQUEST_DEADLINE_MS, or options.deadline_ms if lower)`,
    );
  }
}

/** The client closed the connection before the answer; its queued or running work is dropped. */
export class ClientGone extends ServiceError {
  override name = 'ClientGone';
  constructor(message: string) {
    super('client_closed', message);
  }
}

/** Every worker is busy and the queue is full: the client should retry later. */
export class Overloaded extends ServiceError {
  override name = 'Overloaded';
  constructor(message: string) {
    super('overloaded', `overloaded: ${message}; retry later`);
  }
}

/** `p`, or the signal's reason if it aborts first. */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e as Error);
      },
    );
  });
}
