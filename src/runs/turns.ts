import { untilAborted } from '../common/errors.js';

/**
 * Arrival order per run. The ledger's bookkeeping is synchronous, but with scoring on worker threads a
 * request's plans come back after others have arrived; each request that touches a run's state takes a
 * turn when it arrives and does its bookkeeping only when every earlier turn of that run is done. Step
 * accounting is then exactly as if the requests had been served one by one in arrival order, while their
 * scoring runs in parallel. Runs do not wait for each other.
 *
 * A request whose run is not known when it arrives (a large body read on a worker) keeps its place with
 * `arrive()`: turns taken after it, of any run, are handed out only once it has named its run or left.
 */
export class RunTurns {
  private readonly tails = new Map<string, Promise<void>>();
  /** Places in arrival order whose turns are not handed out yet, the first one still unnamed. */
  private readonly line: Place[] = [];

  /** Takes the run's next turn now. `ready` resolves when the turn comes; `done` must be called in every case. */
  take(runId: string): Turn {
    if (this.line.length === 0) return this.handOut(runId);
    const place: Place = {};
    this.line.push(place);
    return this.named(place, runId);
  }

  /** Keeps this request's place in arrival order until it knows its run; `take` or `leave` must follow. */
  arrive(): Arrival {
    const place: Place = {};
    this.line.push(place);
    return {
      take: (runId) => this.named(place, runId),
      leave: () => {
        if (place.runId !== undefined) return;
        place.left = true;
        this.admit();
      },
    };
  }

  /** Runs `f` in the run's next turn (or in the turn of `arrival`), giving up the wait (not a turn in progress) when `signal` aborts. */
  async inTurn<T>(runId: string, signal: AbortSignal | undefined, f: () => T | Promise<T>, arrival?: Arrival): Promise<T> {
    const turn = arrival ? arrival.take(runId) : this.take(runId);
    try {
      await (signal ? untilAborted(turn.ready, signal) : turn.ready);
      return await f();
    } finally {
      turn.done();
    }
  }

  private handOut(runId: string): Turn {
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

  /** The turn of a place in the line, handed out once every place before it has named its run or left. */
  private named(place: Place, runId: string): Turn {
    const turn = new Promise<Turn>((resolve) => {
      place.runId = runId;
      place.handOut = resolve;
    });
    this.admit();
    return { ready: turn.then((t) => t.ready), done: () => void turn.then((t) => t.done()) };
  }

  private admit(): void {
    for (let first = this.line[0]; first && (first.left || first.runId !== undefined); first = this.line[0]) {
      this.line.shift();
      if (first.runId !== undefined) first.handOut!(this.handOut(first.runId));
    }
  }
}

interface Turn {
  ready: Promise<void>;
  done: () => void;
}

interface Place {
  runId?: string;
  handOut?: (turn: Turn) => void;
  left?: boolean;
}

/** A request's place in arrival order, kept while its run is not known. */
export interface Arrival {
  /** The request's turn of `runId`, in the place it arrived in. */
  take(runId: string): Turn;
  /** The request touches no run after all (refused, stateless, abandoned); nothing once it has taken its turn. */
  leave(): void;
}
