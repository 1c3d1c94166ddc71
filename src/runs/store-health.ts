/** A state-store event worth an operator's log line; the store knows nothing of the logger. */
type StoreEvent = {
  /** down: unreachable or full; up: back; waiting: not reachable at start-up yet; fresh: an unusable state file moved aside. */
  kind: 'down' | 'up' | 'waiting' | 'fresh';
  reason: string;
};
export type StoreEvents = (event: StoreEvent) => void;

/** How often a store that went down checks whether it is back; also how long a good check stays good. */
const PROBE_INTERVAL_MS = 1_000;
/** A check that takes longer than this says the backend is not usable now. */
export const CHECK_TIMEOUT_MS = 2_000;

export interface HealthChecks {
  /** Cheap: is the backend usable now? Throws why not. */
  ping: () => Promise<void>;
  /** After a failure: is it usable again? Throws why not. */
  probe: () => Promise<void>;
}

/**
 * Whether the state backend can be used now. It goes down on the first failure that says the backend is
 * unreachable or full, or when a readiness check finds it so, and comes back by itself: while down, `probe`
 * runs every PROBE_INTERVAL_MS until it succeeds (a load balancer drains a replica whose /ready is 503, so
 * no request may come to bring it back).
 */
export class StoreHealth {
  private reason: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private probing = false;
  private checkedAt = 0;
  private pinging: Promise<string | null> | null = null;

  constructor(
    private readonly checks: HealthChecks,
    private readonly events: StoreEvents,
  ) {}

  /** Why the backend cannot be used now, or null: pinged at most once per PROBE_INTERVAL_MS. */
  async check(): Promise<string | null> {
    if (this.reason !== null || Date.now() - this.checkedAt < PROBE_INTERVAL_MS) return this.reason;
    this.pinging ??= within(this.checks.ping(), CHECK_TIMEOUT_MS)
      .then(
        () => {
          this.up();
          return null;
        },
        (e: unknown) => {
          this.down((e as Error).message);
          return this.reason;
        },
      )
      .finally(() => (this.pinging = null));
    return this.pinging;
  }

  down(reason: string): void {
    if (this.reason === null) this.events({ kind: 'down', reason });
    this.reason = reason;
    this.timer ??= setInterval(() => void this.recover(), PROBE_INTERVAL_MS).unref();
  }

  /** A use of the backend succeeded: it is usable, whatever a probe last said. */
  up(): void {
    this.checkedAt = Date.now();
    if (this.reason === null) return;
    const was = this.reason;
    this.reason = null;
    this.stop();
    this.events({ kind: 'up', reason: `recovered from: ${was}` });
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async recover(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      await within(this.checks.probe(), CHECK_TIMEOUT_MS);
      this.up();
    } catch (e) {
      if (this.reason !== null) this.reason = (e as Error).message;
    } finally {
      this.probing = false;
    }
  }
}

export function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
