import { ServiceError } from '../common/errors.js';
/** A part of the service that needs a model: loaded once, on first use or at start-up, and its state. */
export interface CapabilityStatus {
  ready: boolean;
  reason: string;
}

export class CapabilityUnavailable extends ServiceError {
  override name = 'CapabilityUnavailable';
  constructor(message: string) {
    super('capability_unavailable', message);
  }
}

/** The reason a capability gives before anything asked for it. */
export const NOT_LOADED = 'not loaded yet (loads on first use)';

export class Capability<T> {
  private loading: Promise<T> | undefined;
  private state: CapabilityStatus = { ready: false, reason: NOT_LOADED };

  /**
   * `settings`: setting name → its directory, named instead of the path in what clients are told.
   * `probe`: for a capability served by another process (a remote verifier), whether it answers now
   * (null) or why not; `check` asks it once the capability has loaded.
   */
  constructor(
    readonly name: string,
    private readonly load: () => Promise<T>,
    private readonly settings: Record<string, string> = {},
    private readonly probe?: () => Promise<string | null>,
  ) {}

  /** A load failure as clients see it (/ready, 503s): no absolute path of this machine in it. */
  private reasonOf(e: unknown): string {
    let text = e instanceof Error ? e.message : String(e);
    for (const [setting, dir] of Object.entries(this.settings)) text = text.replaceAll(dir.replace(/\/+$/, ''), setting);
    return text.replaceAll(/(?<![\w.])\/(?:[^\s/'"`:,()]+\/)+([^\s/'"`:,()]+)/g, '…/$1');
  }

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
          this.state = { ready: false, reason: this.reasonOf(e) };
          throw new CapabilityUnavailable(`${this.name} is unavailable: ${this.state.reason}`);
        },
      );
    })();
    return this.loading;
  }

  status(): CapabilityStatus {
    return { ...this.state };
  }

  /** The state for /ready: `status`, and for a loaded capability with a probe, whether its server answers now. */
  async check(): Promise<CapabilityStatus> {
    const state = this.status();
    if (!state.ready || !this.probe) return state;
    const problem = await this.probe();
    return problem === null ? state : { ready: false, reason: this.reasonOf(new Error(problem)) };
  }
}
