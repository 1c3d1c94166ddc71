// The SQLite run store's own thread (issue 77): every statement, commit and fsync of runs.sqlite runs here,
// so a slow or stalled disk slows run requests only, never the event loop that answers probes and scoring.
// The transaction a request drives from the main thread (RunStore.withRun) stays open here, statement by
// statement, until the main thread ends it.
import { parentPort, workerData } from 'node:worker_threads';
import type { FromThread, ThreadFailure, ToThread } from './sqlite-thread-protocol.js';
import { SqliteRunStore, type SqliteStoreOptions } from './sqlite-store.js';

const port = parentPort!;
const send = (m: FromThread) => port.postMessage(m);
const failure = (e: unknown): ThreadFailure => ({
  name: (e as Error).name,
  message: (e as Error).message,
  ...(typeof (e as { code?: unknown }).code === 'string' && { code: (e as { code: string }).code }),
});

const { stateDir, options } = workerData as { stateDir: string; options: Omit<SqliteStoreOptions, 'events'> };
let store: SqliteRunStore;
try {
  store = new SqliteRunStore(stateDir, { ...options, events: (event) => send({ event }) });
  send({ opened: true });
} catch (e) {
  send({ opened: false, failure: failure(e) });
  port.close();
}

/** A transaction's incoming statements, in order. */
class Inbox {
  private readonly queued: ToThread[] = [];
  private waiting: ((m: ToThread) => void) | null = null;
  put(m: ToThread): void {
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w(m);
    } else this.queued.push(m);
  }
  take(): Promise<ToThread> {
    const m = this.queued.shift();
    return m ? Promise.resolve(m) : new Promise((resolve) => (this.waiting = resolve));
  }
}
const sessions = new Map<number, Inbox>();
// Ends a transaction the main thread rolled back on its own account: nothing of the thread's went wrong.
const ROLLED_BACK = Object.assign(new Error('rolled back by the request'), { name: 'RolledBack' });

function begin(id: number, runId: string): void {
  const inbox = new Inbox();
  sessions.set(id, inbox);
  let endId = id;
  store
    .withRun(runId, async (tx) => {
      send({ id, ok: true, value: null });
      // A statement that failed is what the transaction failed of, whatever the request does next: the store
      // reads it as a full disk or damage, as it would on the main thread.
      let failed: unknown = null;
      for (;;) {
        const m = await inbox.take();
        if (m.op === 'end') {
          endId = m.id;
          if (failed) throw failed;
          if (m.commit) return;
          throw ROLLED_BACK;
        }
        if (m.op !== 'tx') continue;
        try {
          const method = tx[m.method] as (...args: unknown[]) => Promise<unknown>;
          send({ id: m.id, ok: true, value: await method(...m.args) });
        } catch (e) {
          failed = e;
          send({ id: m.id, ok: false, failure: failure(e) });
        }
      }
    })
    .then(
      () => send({ id: endId, ok: true, value: null }),
      (e) => send({ id: endId, ok: false, failure: failure(e) }),
    )
    .finally(() => sessions.delete(id));
}

port.on('message', (m: ToThread) => {
  if (m.op === 'begin') return begin(m.id, m.runId);
  if (m.op === 'tx' || m.op === 'end') return sessions.get(m.session)?.put(m);
  const method = store[m.method] as (...args: unknown[]) => Promise<unknown>;
  method.apply(store, m.args).then(
    (value) => {
      send({ id: m.id, ok: true, value });
      if (m.method === 'close') port.close();
    },
    (e) => send({ id: m.id, ok: false, failure: failure(e) }),
  );
});
