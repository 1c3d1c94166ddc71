import type { HistoryRow } from '../contracts/runs.js';
import type { OpenStep, ReadAhead, RunRecord, RunStore, RunTx } from './store.js';
import { StoreUnavailable } from './store.js';

/**
 * The PostgreSQL store while start-up still waits for its server (STATE_WAIT_MS): the service listens
 * meanwhile, so liveness probes pass, while run requests get 503 `store_unavailable` and `/ready` 503 until
 * the store is reached. `opened` settles when it is, or rejects when start-up gives up on it.
 */
export class StoreBeingOpened implements RunStore {
  readonly engine = 'postgres';
  readonly opened: Promise<void>;
  private store: RunStore | null = null;
  private closed = false;

  constructor(open: Promise<RunStore>) {
    this.opened = open.then(async (store) => {
      // Closed before it was reached (a shutdown during the wait): it is closed as soon as it is.
      if (this.closed) await store.close();
      else this.store = store;
    });
    this.opened.catch(() => undefined); // the caller of `opened` reports the failure
  }

  private get reached(): RunStore {
    if (this.store) return this.store;
    throw new StoreUnavailable('the PostgreSQL database of STATE_URL is not reached yet (start-up waits for it: STATE_WAIT_MS)');
  }

  async withRun<T>(runId: string, f: (tx: RunTx) => Promise<T>, ahead?: ReadAhead): Promise<T> {
    return this.reached.withRun(runId, f, ahead);
  }

  async getRun(id: string): Promise<RunRecord | null> {
    return this.reached.getRun(id);
  }

  async openStep(id: string): Promise<OpenStep | null> {
    return this.reached.openStep(id);
  }

  async listRuns(after: string | null, limit: number): Promise<RunRecord[]> {
    return this.reached.listRuns(after, limit);
  }

  async history(runId: string, offset: number, limit: number): Promise<{ total: number; rows: HistoryRow[] }> {
    return this.reached.history(runId, offset, limit);
  }

  async countRequest(key: string, windowMs: number): Promise<{ count: number; resetInMs: number }> {
    return this.reached.countRequest!(key, windowMs);
  }

  async check(): Promise<string | null> {
    return this.store ? this.store.check() : 'waiting for the PostgreSQL database of STATE_URL (start-up, STATE_WAIT_MS)';
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.store?.close();
  }
}
