import { PostgresRunStore } from './postgres-store.js';
import { SqliteRunStore } from './sqlite-store.js';
import type { RunStore } from './store.js';

/** PostgreSQL when `stateUrl` names one (replicas share it), else the embedded SQLite file under `stateDir`. */
export async function openRunStore(stateUrl: string | undefined, stateDir: string): Promise<RunStore> {
  return stateUrl ? PostgresRunStore.open(stateUrl) : new SqliteRunStore(stateDir);
}
