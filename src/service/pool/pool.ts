import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { Piscina } from 'piscina';
import type * as Tasks from '../tasks/index.js';
import type { TaskFailure, WorkerSettings } from '../tasks/index.js';
import type { Round, TaskName } from './worker.js';
import { gathering } from './gather.js';
import { Overloaded, ServiceError, untilAborted } from '../../common/errors.js';
import { closeLoads, modelFlags } from './model-flags.js';
import { collectTask } from '../tasks/memory.js';
import { dropSpareShared } from '../../common/movable-bytes.js';

type Input<K extends TaskName> = Parameters<(typeof Tasks)[K]>[0];

// Tasks that may be inside onnxruntime when their request is abandoned. Terminating a worker during a
// native call aborts the whole process (seen here: "terminate called after throwing an instance of
// 'Napi::Error'"), so these are stopped cooperatively instead: the request is answered at once, the task
// sees its cancel flag before it starts and, in graph edit distance, during the search.
const NATIVE: ReadonlySet<TaskName> = new Set<TaskName>(['loadTask', 'verifyTask', 'traceTask', 'evaluateDialogueTask', 'evaluatePlansTask']);

// The long lane: the tasks of the evaluation routes (graph edit distance, a long dialogue's metrics, text
// scores over many or long texts) and of fitting a log, which may keep a worker for seconds. At most
// longLane(workers) of them are handed to piscina at once, the others wait here in arrival order, so the
// tasks of the routes called at every step of training or tutoring (scoring, verifying, tracing) always find
// a worker, or wait only behind each other.
const LONG: ReadonlySet<TaskName> = new Set<TaskName>(['evaluatePlansTask', 'evaluateDialogueTask', 'textScoresTask', 'corpusScoresTask', 'fitJsonTask']);
/** Long tasks that may hold workers at once: all but one, so that one is always left to the others; with one worker, that one. */
export const longLane = (workers: number): number => Math.max(1, workers - 1);
type Output<K extends TaskName> = Exclude<Awaited<ReturnType<(typeof Tasks)[K]>>, TaskFailure>;

interface PoolStatus {
  /** Worker threads; 0 when the main thread runs the work itself. */
  workers: number;
  /** Tasks running now. */
  running: number;
  /** Tasks waiting for a worker. */
  queued: number;
  max_queue: number;
  /** Every worker busy and the queue full: the next task that is not long is refused. */
  saturated: boolean;
  /** Share of the pool's capacity in use since start (piscina's utilization). */
  utilization: number;
}

/** What the resting pool did to give memory back since start (IDLE_COLLECT_MS). */
interface Collections {
  count: number;
  /** The workers' heaps together after the last one. */
  heapBytes: number;
  /** Heap the collections gave back, in all. */
  freedBytes: number;
  /** Workers replaced by fresh ones because the process held more than IDLE_RSS_MB after a collection. */
  replaced: number;
}

/** Sentence-encoder cache lookups since start, over every thread. */
interface CacheLookups {
  hits: number;
  misses: number;
}

export interface WorkPool {
  readonly workers: number;
  /** Runs a task; the buffers in `transfer` are moved to its worker, unusable here afterwards. */
  run<K extends TaskName>(name: K, input: Input<K>, signal: AbortSignal, transfer?: ArrayBuffer[]): Promise<Output<K>>;
  /** Runs a task once in every worker (once on the main thread without workers); rounds run one after another. */
  each<K extends TaskName>(name: K, input: Input<K>): Promise<Output<K>[]>;
  status(): PoolStatus;
  /** status().saturated, without the rest: asked on every compute request, where piscina's utilization, a summary of its run-time histogram, cost more than the check. */
  saturated(): boolean;
  /** Workers with no task now (0 without workers): those a request split in more parts sets to work at once. */
  idle(): number;
  encoderCache(): CacheLookups;
  collections(): Collections;
  close(): Promise<void>;
}

export interface PoolOptions {
  workers: number;
  maxQueue: number;
  /** V8 old generation per worker, MiB. */
  heapMb: number;
  /** Resident memory of the process, MiB, above which a resting pool replaces its workers. */
  idleRssMb: number;
  /** How long the pool rests after work before it looks at idleRssMb. */
  idleCollectMs: number;
  settings: Omit<WorkerSettings, 'intraOpThreads' | 'cacheLookups' | 'models'>;
  onWorkerError: (e: Error) => void;
  /** The workers' shared model flags (model-flags.ts); a test passes its own to watch and hold their loads. */
  models?: Int32Array;
  /** A test's hold on the long lane's tasks (hold.ts). */
  hold?: Int32Array;
}

// Per worker. At 16 MiB much of a worker's time went to scavenges and promotions while judging plans;
// 48 MiB raised multi-client /score-plan throughput for no measurable resident memory (docs/concurrency.md).
const WORKER_YOUNG_GENERATION_MB = 48;
// The smallest a worker's semi-space gets (V8's default is 1 MiB), where the rest's collection shrinks it
// to. From 1 MiB it grew back slowly: for seconds after a rest, /verify-turn N = 20 from one client ran
// about a fifth slower, with V8's collector threads several times as busy. V8 reads the flag when it
// makes an isolate, so it holds for the workers started after it is set.
const WORKER_MIN_SEMI_SPACE_MB = 4;

// After traffic the threads keep their grown heaps (after 64×8 requests of fresh text the process held
// about 200 MB more than at rest): V8 returns freed pages only after a full collection, a worker waiting
// for tasks runs none, and only a memory-reducing one shrinks the young generations. So once the pool has
// had no task for IDLE_COLLECT_MS after doing work, every thread runs one (a request arriving meanwhile
// waits for it). The price is the next request's: V8 grows the young generations again and recompiles
// what the collection dropped (the first fresh 64×8 request after such a rest took about three times a
// warm one), so the rest is long against a trainer's step. Collections do not give back the malloc arenas
// the workers' threads grew (a large share of RSS after a soak at 8 connections); if the process is still
// above IDLE_RSS_MB, the workers are replaced, one at a time.
// A replacement loads its models before it is ready, far sooner than this; one that is not ready by then failed.
const REPLACEMENT_READY_MS = 30_000;

// The encoders of every worker count into one shared pair of cells, read by /metrics without a round trip.
const sharedLookups = () => new BigInt64Array(new SharedArrayBuffer(16));
const lookupsOf = (cells: BigInt64Array): CacheLookups => ({ hits: Number(Atomics.load(cells, 0)), misses: Number(Atomics.load(cells, 1)) });

const isFailure = (x: unknown): x is TaskFailure => typeof x === 'object' && x !== null && 'failure' in x && typeof (x as TaskFailure).failure === 'string';
/** A task's value, or its failure thrown again on this thread. */
export function unwrap<T>(x: T | TaskFailure): T {
  if (!isFailure(x)) return x;
  throw new ServiceError(x.failure, x.message, x.issues);
}

// Compiled, the workers run worker.js beside this file; from source (under tsx), an entry that loads tsx first.
const workerFile = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './worker-tsx.mjs' : './worker.js', import.meta.url));

/**
 * The pool the routes hand CPU-bound work to: piscina, one thread per core, a bounded queue. A task whose
 * signal aborts is taken off the queue, or its worker is terminated (and replaced) if it already runs;
 * a task that may be in native code is told to stop instead (NATIVE above).
 */
export async function createPool(o: PoolOptions): Promise<WorkPool> {
  if (o.workers === 0) return inProcess(o);
  // Each worker's ONNX sessions get one intra-op thread: the pool already keeps every core busy, and two
  // runtimes each spreading over every core only trade cache misses.
  // WordNet's files, read once into shared memory: every worker reads the same bytes instead of its own copy.
  const { shareWordNetFiles } = await import('../../metrics/text/wordnet.js');
  const settings: WorkerSettings = {
    ...o.settings,
    intraOpThreads: 1,
    cacheLookups: sharedLookups(),
    models: o.models ?? modelFlags(),
    wordnetFiles: shareWordNetFiles(),
  };
  setFlagsFromString(`--min-semi-space-size=${WORKER_MIN_SEMI_SPACE_MB}`);
  const pool = new Piscina({
    filename: workerFile,
    minThreads: o.workers,
    maxThreads: o.workers,
    idleTimeout: Infinity,
    workerData: { settings },
    // Bounded so that memory adds up to a stated total: V8 grows an unbounded heap long before collecting it.
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB, maxOldGenerationSizeMb: o.heapMb },
  });
  // A worker that dies (out of memory, a native crash) fails its task and is replaced; without a listener
  // piscina's 'error' event would end the process.
  pool.on('error', (e: Error) => o.onWorkerError(e));
  // Tasks handed to piscina and not settled, by cancel flag: the first `workers` of them run, the rest wait.
  // The bound is kept here rather than by piscina's maxQueue, so that what /ready reports is what admission
  // decides; closing stops and awaits them.
  const live = new Map<Int32Array, Promise<unknown>>();
  // Long tasks handed to piscina and not settled, and those waiting for their turn (LONG).
  const longMax = longLane(o.workers);
  let longHanded = 0;
  const lane: Array<{ start: () => void; drop: (reason: unknown) => void }> = [];
  const collections: Collections = { count: 0, heapBytes: 0, freedBytes: 0, replaced: 0 };
  let worked = false;
  let closing = false;
  let replacing: Promise<void> | undefined;
  let idle: NodeJS.Timeout | undefined;
  const track = (name: TaskName, input: unknown, signal?: AbortSignal, transferList: ArrayBuffer[] = [], round?: Round) => {
    const cancel = new Int32Array(new SharedArrayBuffer(4));
    const long = LONG.has(name);
    const hand = () => {
      // A task that may be in native code gets no signal: piscina would terminate its worker (NATIVE).
      const handed = pool.run(
        { name, input, cancel, hold: long ? o.hold : undefined, round },
        NATIVE.has(name) || !signal ? { transferList } : { signal, transferList },
      );
      if (long) {
        longHanded++;
        const next = () => {
          longHanded--;
          lane.shift()?.start();
        };
        handed.then(next, next);
      }
      return handed;
    };
    const task = !long || longHanded < longMax ? hand() : inLane(hand, signal);
    clearTimeout(idle);
    // The worker is busy until the task settles, even when its request was answered before.
    live.set(
      cancel,
      task
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => {
          live.delete(cancel);
          if (live.size === 0 && worked) idle = setTimeout(collect, o.idleCollectMs).unref();
        }),
    );
    return { task, cancel };
  };
  // A long task waits for its turn here, or until its request is abandoned (then it never reaches a worker).
  const inLane = (hand: () => Promise<unknown>, signal?: AbortSignal) =>
    new Promise<unknown>((resolve, reject) => {
      const entry = {
        start: () => {
          signal?.removeEventListener('abort', abandon);
          resolve(hand());
        },
        drop: (reason: unknown) => {
          signal?.removeEventListener('abort', abandon);
          lane.splice(lane.indexOf(entry), 1);
          reject(reason);
        },
      };
      const abandon = () => entry.drop(signal?.reason);
      signal?.addEventListener('abort', abandon, { once: true });
      lane.push(entry);
    });
  // A task per worker, kept in it until all have arrived (gather.ts). Rounds run one at a time: two at once
  // could each hold one worker while waiting for the other.
  let rounds: Promise<unknown> = Promise.resolve();
  const each = <K extends TaskName>(name: K, input: Input<K>) => {
    const round: Round = { cells: gathering(), workers: o.workers, limitMs: REPLACEMENT_READY_MS };
    const all = rounds.then(() =>
      Promise.all(Array.from({ length: o.workers }, () => track(name, input, undefined, [], round).task.then((x) => unwrap(x as Output<K>)))),
    );
    rounds = all.catch(() => undefined);
    return all;
  };
  const aboveBound = () => process.memoryUsage.rss() > o.idleRssMb * 2 ** 20;
  const collect = async () => {
    // A round still waiting for a replacement ends first (it stops, having seen the work that armed this
    // rest): a second round beside it would retire the worker that serves meanwhile. Work running by then,
    // or a second rest that waited too, arms or is the next rest.
    await replacing;
    if (closing || !worked || live.size > 0) return;
    worked = false;
    dropSpareShared();
    const collecting = each('collectTask', null).catch(() => []);
    // The main thread's heap too, meanwhile: after heavy traffic it holds pages its live objects no longer
    // need until V8's memory reducer gets to them, well into the rest, and its young generation (sized from
    // the machine's memory) is the largest of all. One collection gives them back at once.
    await collectTask(null, () => false);
    const heaps = await collecting;
    if (heaps.length === 0) return;
    collections.count++;
    collections.heapBytes = heaps.reduce((n, h) => n + h.after, 0);
    // A collection may also grow a heap (V8 commits pages as it moves objects): a counter only counts gives.
    collections.freedBytes += heaps.reduce((n, h) => n + Math.max(0, h.before - h.after), 0);
    if (aboveBound()) await (replacing = replaceWorkers());
  };
  // One worker at a time, so that a request arriving meanwhile finds one ready; stops once work has
  // arrived since the rest began, even work already done (the rest wait for the next rest). Piscina's
  // balancer gives a task to the first idle worker in the order they started, so each retireTask reaches
  // an old worker; one that reaches a new worker stops.
  const replaceWorkers = async () => {
    const round = Date.now();
    for (let i = 0; i < o.workers && !worked && !closing; i++) {
      let ready: () => void = () => undefined;
      const replaced = new Promise<void>((resolve) => (ready = resolve));
      pool.once('workerCreate', ready);
      const late = setTimeout(ready, REPLACEMENT_READY_MS).unref();
      const retired = await track('retireTask', round).task.then(
        () => false,
        () => true,
      );
      if (retired) {
        await replaced;
        // Counted once the fresh worker is ready (or late): a round's last count is its end.
        collections.replaced++;
      }
      clearTimeout(late);
      pool.off('workerCreate', ready);
      if (!retired) return;
    }
  };
  // Tasks handed to piscina: running, or waiting there for a worker.
  const handed = () => live.size - lane.length;
  // Every worker busy and MAX_QUEUE tasks waiting for one: the next task that is not long is refused.
  const saturated = () => handed() - o.workers >= o.maxQueue;
  return {
    workers: o.workers,
    async run(name, input, signal, transfer = []) {
      if (signal.aborted) throw signal.reason;
      // Refused when it would wait with MAX_QUEUE tasks ahead of it: those waiting for a worker, and for a long
      // task those in its lane too. Long tasks thus never get a task that is not long refused.
      const long = LONG.has(name);
      const waiting = Math.max(0, handed() - o.workers);
      if (long && longHanded >= longMax && waiting + lane.length >= o.maxQueue) {
        throw new Overloaded(`${longHanded} long tasks run, as many as ${o.workers} workers allow, and ${waiting + lane.length} tasks wait (MAX_QUEUE)`);
      }
      if (saturated()) throw new Overloaded(`all ${o.workers} workers are busy and ${o.maxQueue} tasks wait (MAX_QUEUE)`);
      const native = NATIVE.has(name);
      worked = true;
      const { task, cancel } = track(name, input, signal, transfer);
      const onAbort = () => Atomics.store(cancel, 0, 1);
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        return unwrap(await (native ? untilAborted(task, signal) : task));
      } catch (e) {
        if (signal.aborted) throw signal.reason;
        if ((e as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
          throw new ServiceError(
            'worker_out_of_memory',
            `the request needed more than the ${o.heapMb} MiB heap a worker may use (WORKER_HEAP_MB); send less per request`,
          );
        }
        throw e;
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
    each(name, input) {
      worked = true;
      return each(name, input);
    },
    status() {
      const running = Math.min(handed(), o.workers);
      return {
        workers: o.workers,
        running,
        queued: live.size - running,
        max_queue: o.maxQueue,
        saturated: saturated(),
        utilization: Number(pool.utilization.toFixed(4)),
      };
    },
    saturated,
    idle: () => Math.max(0, o.workers - handed()),
    encoderCache: () => lookupsOf(settings.cacheLookups),
    collections: () => ({ ...collections }),
    // Terminating a worker inside onnxruntime aborts the process: tasks are told to stop and awaited first.
    async close() {
      closing = true;
      clearTimeout(idle);
      for (const cancel of live.keys()) Atomics.store(cancel, 0, 1);
      for (const waiting of [...lane]) waiting.drop(new Overloaded('the service is closing'));
      await Promise.all([...live.values(), closeLoads(settings.models)]);
      await pool.destroy();
    },
  };
}

async function inProcess(o: PoolOptions): Promise<WorkPool> {
  const tasks = await import('../tasks/index.js');
  // The main thread's ONNX sessions may use every core (onnxruntime's default).
  const settings: WorkerSettings = { ...o.settings, intraOpThreads: 0, cacheLookups: sharedLookups(), models: modelFlags() };
  tasks.settleInProcess(settings);
  const table = tasks as unknown as Record<TaskName, (input: unknown, stop: () => boolean) => Promise<unknown>>;
  return {
    workers: 0,
    // Work on the main thread cannot be interrupted (no timer fires while it runs): past its deadline a
    // request is answered 504 and its result dropped once the work ends.
    async run(name, input, signal) {
      if (signal.aborted) throw signal.reason;
      const out = await table[name](input, () => signal.aborted);
      // A deadline that passed during the work has not fired yet: one turn of the timers lets it.
      await new Promise((r) => setTimeout(r, 0));
      if (signal.aborted) throw signal.reason;
      return unwrap(out) as never;
    },
    each: async (name, input) => [unwrap(await table[name](input, () => false)) as never],
    status: () => ({ workers: 0, running: 0, queued: 0, max_queue: o.maxQueue, saturated: false, utilization: 0 }),
    saturated: () => false,
    idle: () => 0,
    encoderCache: () => lookupsOf(settings.cacheLookups),
    collections: () => ({ count: 0, heapBytes: 0, freedBytes: 0, replaced: 0 }),
    close: async () => undefined,
  };
}
