/**
 * Arrival order per run. The ledger's bookkeeping is synchronous, but with scoring on worker threads a
 * request's plans come back after others have arrived; each request that touches a run's state takes a
 * turn when it arrives and does its bookkeeping only when every earlier turn of that run is done. Step
 * accounting is then exactly as if the requests had been served one by one in arrival order, while their
 * scoring runs in parallel. Runs do not wait for each other.
 */
export class RunTurns {
  private readonly tails = new Map<string, Promise<void>>();

  /** Takes the run's next turn now. `ready` resolves when the turn comes; `done` must be called in every case. */
  take(runId: string): { ready: Promise<void>; done: () => void } {
    const before = this.tails.get(runId) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    this.tails.set(runId, mine);
    return {
      ready: before,
      done: () => {
        done();
        if (this.tails.get(runId) === mine) this.tails.delete(runId);
      },
    };
  }

  /** Runs `f` in the run's next turn, giving up the wait (not a turn in progress) when `signal` aborts. */
  async inTurn<T>(runId: string, signal: AbortSignal | undefined, f: () => T | Promise<T>): Promise<T> {
    const turn = this.take(runId);
    try {
      await (signal ? untilAborted(turn.ready, signal) : turn.ready);
      return await f();
    } finally {
      turn.done();
    }
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
