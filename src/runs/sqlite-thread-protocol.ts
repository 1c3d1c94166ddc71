// Messages between the SQLite store's thread (sqlite-thread-worker.ts) and its proxy (sqlite-thread.ts).
import type { RunStore, RunTx } from './store.js';
import type { StoreEvents } from './store-health.js';

/** The store's reads and checks, answered by the thread's SqliteRunStore. */
type StoreCall = 'getRun' | 'openStep' | 'listRuns' | 'history' | 'check' | 'close';

export type ToThread =
  | { id: number; op: 'call'; method: StoreCall; args: unknown[] }
  /** Opens the transaction `id` on the run; answered (to `id`) once it holds the run's lock. */
  | { id: number; op: 'begin'; runId: string }
  | { id: number; op: 'tx'; session: number; method: keyof RunTx; args: unknown[] }
  /** Commits or rolls back the transaction `session`; answered (to `id`) when that is done. */
  | { id: number; op: 'end'; session: number; commit: boolean };

/** A failure as data: a ServiceError's code survives the thread boundary, as the pool's tasks' do. */
export interface ThreadFailure {
  name: string;
  message: string;
  code?: string;
}

export type FromThread =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; failure: ThreadFailure }
  | { event: Parameters<StoreEvents>[0] }
  | { opened: true }
  | { opened: false; failure: ThreadFailure };

export type StoreMethod = Extract<keyof RunStore, StoreCall>;
