import { PostgresRunStore } from './postgres-store.js';
import { SqliteThreadStore } from './sqlite-thread.js';
import type { RunStore } from './store.js';
import type { StoreEvents } from './store-health.js';
import { StoreBeingOpened } from './store-being-opened.js';

export interface StoreSettings {
  /** STATE_URL: PostgreSQL, shared by replicas; unset: the embedded SQLite file under `stateDir`. */
  stateUrl?: string | undefined;
  stateDir: string;
  /** STATE_WAIT_MS: how long start-up waits for an unreachable PostgreSQL. */
  waitMs: number;
  /** STATE_FRESH_IF_UNUSABLE. */
  freshIfUnusable: boolean;
  /** STATE_QUERY_TIMEOUT_MS (PostgreSQL). */
  queryTimeoutMs?: number;
  /** STATE_CHECK_INTERVAL_MS (SQLite). */
  checkIntervalMs?: number;
}

/**
 * The run store, and when it is usable: SQLite once its thread has opened the file (a file that cannot be
 * used fails here), PostgreSQL once its server is reached — meanwhile the store answers 503 and the service
 * listens (StoreBeingOpened).
 */
export async function openRunStore(s: StoreSettings, events: StoreEvents = () => undefined): Promise<{ store: RunStore; opened: Promise<void> }> {
  if (!s.stateUrl) {
    const store = await SqliteThreadStore.open(s.stateDir, { freshIfUnusable: s.freshIfUnusable, events, checkIntervalMs: s.checkIntervalMs });
    return { store, opened: Promise.resolve() };
  }
  const store = new StoreBeingOpened(PostgresRunStore.open(s.stateUrl, s.waitMs, events, s.queryTimeoutMs));
  return { store, opened: store.opened };
}
