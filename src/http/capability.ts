/** A part of the service that needs a model: loaded once, on first use or at start-up, and its state. */
export interface CapabilityStatus {
  ready: boolean;
  reason: string;
}

export class CapabilityUnavailable extends Error {
  override name = 'CapabilityUnavailable';
}

export class Capability<T> {
  private loading: Promise<T> | undefined;
  private state: CapabilityStatus = { ready: false, reason: 'not loaded yet (loads on first use)' };

  constructor(
    readonly name: string,
    private readonly load: () => Promise<T>,
  ) {}

  /** The loaded value; a failed load is not retried (the files will not have changed), it is reported. */
  get(): Promise<T> {
    this.loading ??= (() => {
      this.state = { ready: false, reason: 'loading' };
      return this.load().then(
        (value) => {
          this.state = { ready: true, reason: 'ok' };
          return value;
        },
        (e: unknown) => {
          this.state = { ready: false, reason: e instanceof Error ? e.message : String(e) };
          throw new CapabilityUnavailable(`${this.name} is unavailable: ${this.state.reason}`);
        },
      );
    })();
    return this.loading;
  }

  status(): CapabilityStatus {
    return { ...this.state };
  }
}
