import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openRunStore } from '../../src/runs/open-store.js';
import type { RunStore } from '../../src/runs/store.js';
import { tempStateDir } from './app.js';

export const ENGINES = ['sqlite', 'postgres'] as const;
export type Engine = (typeof ENGINES)[number];

/**
 * A new, empty PostgreSQL database on the cluster `npm test` started (scripts/with-postgres.mjs), or on
 * TEST_POSTGRES_URL. Without either the run-state tests fail: they never skip.
 */
export async function freshPostgresUrl(): Promise<string> {
  const admin = process.env.TEST_POSTGRES_URL;
  if (!admin) throw new Error('TEST_POSTGRES_URL is not set: run the tests with `npm test`, which starts a throwaway PostgreSQL cluster');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Service settings that put run state on `engine`, fresh. */
export async function stateSettings(engine: Engine): Promise<{ STATE_DIR: string; STATE_URL?: string }> {
  return engine === 'postgres' ? { STATE_DIR: tempStateDir(), STATE_URL: await freshPostgresUrl() } : { STATE_DIR: tempStateDir() };
}

export async function openStore(s: { STATE_DIR: string; STATE_URL?: string }): Promise<RunStore> {
  const { store, opened } = await openRunStore({ stateUrl: s.STATE_URL, stateDir: s.STATE_DIR, waitMs: 0, freshIfUnusable: false });
  await opened;
  return store;
}
