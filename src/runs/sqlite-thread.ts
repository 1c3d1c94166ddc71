// The SQLite run store, served from a thread of its own (sqlite-thread-worker.ts): what a request asks of it
// crosses as messages, and the main thread never waits for the disk.
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ServiceError } from '../common/errors.js';
import type { ErrorCode } from '../contracts/errors.js';
import type { HistoryRow } from '../contracts/runs.js';
import type { FromThread, StoreMethod, ThreadFailure, ToThread } from './sqlite-thread-protocol.js';
import type { SqliteStoreOptions } from './sqlite-store.js';
import { CHECK_TIMEOUT_MS, within } from './store-health.js';
import { type OpenStep, type RunRecord, type RunStore, type RunTx, StateUnusable, StoreUnavailable } from './store.js';

// Compiled, the thread runs the .js beside this file; from source (under tsx), an entry that loads tsx first.
const entry = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './sqlite-thread-tsx.mjs' : './sqlite-thread-worker.js', import.meta.url));

const TX_METHODS: ReadonlyArray<keyof RunTx> = [
  'run',
  'saveRun',
  'openStep',
  'saveOpenStep',
  'addValues',
  'values',
  'finalizeStep',
  'addLatePlans',
  'weightsBefore',
  'receipt',
  'putReceipt',
  'deleteRun',
  'countRuns',
];

/** A failure from the thread, thrown again here: a service error keeps its code (its HTTP status). */
function thrown(f: ThreadFailure): Error {
  const e =
    f.code && !f.code.startsWith('SQLITE') && !/^E[A-Z]+$/.test(f.code)
      ? new ServiceError(f.code as Exclude<ErrorCode, 'internal'>, f.message)
      : new Error(f.message);
  e.name = f.name;
  return e;
}

export class SqliteThreadStore implements RunStore {
  readonly engine = 'sqlite';
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  /** Why the thread is gone, once it is: every later use is a 503. */
  private stopped: string | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: FromThread) => {
      if (!('id' in m)) return;
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (this.pending.size === 0) worker.unref();
      if (m.ok) p.resolve(m.value);
      else p.reject(thrown(m.failure));
    });
    const gone = (why: string) => {
      this.stopped ??= why;
      for (const p of this.pending.values()) p.reject(new StoreUnavailable(`the run state thread ${why}`));
      this.pending.clear();
    };
    worker.on('error', (e) => gone(`failed: ${e.message}`));
    worker.on('exit', (code) => gone(`exited (${code})`));
  }

  /** Opens runs.sqlite on its thread; rejects with StateUnusable when the file cannot be used, as SqliteRunStore would. */
  static open(stateDir: string, options: SqliteStoreOptions = {}): Promise<SqliteThreadStore> {
    const { events, ...rest } = options;
    const worker = new Worker(entry, { workerData: { stateDir, options: rest } });
    return new Promise((resolve, reject) => {
      const onError = (e: Error) => reject(new StateUnusable(`the run state thread could not start: ${e.message}`));
      worker.once('error', onError);
      worker.on('message', (m: FromThread) => {
        if ('event' in m) events?.(m.event);
        else if ('opened' in m) {
          worker.off('error', onError);
          if (m.opened) {
            // From now on only an answer still to come keeps the process alive (ask).
            worker.unref();
            resolve(new SqliteThreadStore(worker));
          } else {
            reject(m.failure.name === 'StateUnusable' ? new StateUnusable(m.failure.message) : thrown(m.failure));
            void worker.terminate();
          }
        }
      });
    });
  }

  private ask<T>(m: ToThread): Promise<T> {
    if (this.stopped) return Promise.reject(new StoreUnavailable(`the run state thread ${this.stopped}`));
    return new Promise<T>((resolve, reject) => {
      this.pending.set(m.id, { resolve: resolve as (v: unknown) => void, reject });
      // An answer still to come keeps the process alive; an idle store does not.
      this.worker.ref();
      this.worker.postMessage(m);
    });
  }

  private call<T>(method: StoreMethod, ...args: unknown[]): Promise<T> {
    return this.ask<T>({ id: this.nextId++, op: 'call', method, args });
  }

  async withRun<T>(runId: string, f: (tx: RunTx) => Promise<T>): Promise<T> {
    const session = this.nextId++;
    await this.ask({ op: 'begin', id: session, runId });
    const tx = Object.fromEntries(
      TX_METHODS.map((method) => [method, (...args: unknown[]) => this.ask({ id: this.nextId++, op: 'tx', session, method, args })]),
    ) as unknown as RunTx;
    const end = (commit: boolean) => this.ask({ id: this.nextId++, op: 'end', session, commit });
    let out: T;
    try {
      out = await f(tx);
    } catch (e) {
      // The thread's own reading of a failed statement (a full disk, damage) wins over the raw error f saw.
      const ended = await end(false).then(
        () => null,
        (x: Error) => x,
      );
      throw ended && ended.name !== 'RolledBack' ? ended : e;
    }
    await end(true);
    return out;
  }

  getRun(id: string): Promise<RunRecord | null> {
    return this.call('getRun', id);
  }

  openStep(id: string): Promise<OpenStep | null> {
    return this.call('openStep', id);
  }

  listRuns(after: string | null, limit: number): Promise<RunRecord[]> {
    return this.call('listRuns', after, limit);
  }

  history(runId: string, offset: number, limit: number): Promise<{ total: number; rows: HistoryRow[] }> {
    return this.call('history', runId, offset, limit);
  }

  async check(): Promise<string | null> {
    if (this.stopped) return `the run state thread ${this.stopped}`;
    // A thread held up by the disk or by another process's lock cannot commit either: not ready, said in time.
    return within(this.call<string | null>('check'), CHECK_TIMEOUT_MS).catch(
      (e: Error) => `the run state database did not answer (${e.message}): a slow disk, or a lock another process holds on runs.sqlite`,
    );
  }

  async close(): Promise<void> {
    if (this.stopped) return;
    const exited = new Promise((resolve) => this.worker.once('exit', resolve));
    await this.call('close');
    this.worker.ref();
    await exited;
  }
}
