import { PostgresRunStore } from './postgres-store.js';
import { SqliteRunStore } from './sqlite-store.js';
import type { RunStore } from './store.js';
import type { StoreEvents } from './store-health.js';

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
}

export async function openRunStore(s: StoreSettings, events: StoreEvents = () => undefined): Promise<RunStore> {
  return s.stateUrl
    ? PostgresRunStore.open(s.stateUrl, s.waitMs, events, s.queryTimeoutMs)
    : new SqliteRunStore(s.stateDir, { freshIfUnusable: s.freshIfUnusable, events });
}
