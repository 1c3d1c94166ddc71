// The models of this thread, and WordNet: loaded once (models per directory), at start-up, on first use
// or before a replacement worker takes its first task.
import { resolve } from 'node:path';
import { workerData } from 'node:worker_threads';
import { ServiceError } from '../../common/errors.js';
import { loadUnlessClosing, markLoaded, type Model, wasLoaded } from '../pool/model-flags.js';
import { getWordNet, useWordNetFiles, type WordNetFiles } from '../../metrics/text/wordnet.js';
import type { SentenceEncoder } from '../../text/encoder.js';
import type { TurnVerifier, VerifyInput } from '../../verify/model.js';
import type { Stop } from './task.js';

/** Where a thread finds its models, and how many threads its ONNX sessions may use. */
export interface WorkerSettings {
  encoderDir: string;
  verifierDir: string;
  encoderCacheSize: number;
  encoderBatchSize: number;
  intraOpThreads: number;
  /** Encoder cache lookups of every thread, [hits, misses], in memory shared with the main thread. */
  cacheLookups: BigInt64Array;
  /** Which models the service has loaded, shared by every thread (model-flags.ts). */
  models: Int32Array;
  /** WordNet's files in shared memory, given to pool workers (in process, the thread reads its own). */
  wordnetFiles?: WordNetFiles;
}

let settings = (workerData as { settings?: WorkerSettings } | null)?.settings;
if (settings?.wordnetFiles) useWordNetFiles(settings.wordnetFiles);

/** WORKERS=0: the main thread runs the tasks itself. */
export function settleInProcess(s: WorkerSettings): void {
  settings = s;
}

const configured = (): WorkerSettings => {
  if (!settings) throw new Error('task module used before its settings were given');
  return settings;
};

// Each thread loads the models once, on first use, one per directory (a verifier whose encoder is
// ENCODER_DIR's shares it). Keyed by directory, several in-process services (WORKERS=0) in one process each
// get the models they were configured with.
function loadOnce<T>(loaded: Map<string, Promise<T>>, dir: string, load: (absolute: string) => Promise<T>): Promise<T> {
  const key = resolve(dir);
  let p = loaded.get(key);
  if (!p) {
    p = load(key);
    loaded.set(key, p);
  }
  return p;
}
const encoders = new Map<string, Promise<SentenceEncoder>>();
function encoderAt(dir: string): Promise<SentenceEncoder> {
  return loadOnce(encoders, dir, (key) => {
    const s = configured();
    // Imported on first use: onnxruntime-node and the tokenizers cost start-up time and memory.
    return import('../../text/encoder.js').then(({ SentenceEncoder }) =>
      SentenceEncoder.fromDirectory(key, {
        cacheSize: s.encoderCacheSize,
        batchSize: s.encoderBatchSize,
        intraOpThreads: s.intraOpThreads,
        onCacheLookups: (hits, misses) => {
          const lookups = configured().cacheLookups;
          Atomics.add(lookups, 0, BigInt(hits));
          Atomics.add(lookups, 1, BigInt(misses));
        },
      }),
    );
  });
}
export const encoder = () => loaded('sentence encoder', encoderAt(configured().encoderDir));
const verifiers = new Map<string, Promise<TurnVerifier>>();
function verifierAt(dir: string): Promise<TurnVerifier> {
  return loadOnce(verifiers, dir, () => {
    const threads = configured().intraOpThreads;
    return import('../../verify/verifier.js').then(({ loadVerifier }) => loadVerifier(dir, encoderAt, threads));
  });
}
export const verifier = () => loaded('turn verifier', verifierAt(configured().verifierDir));

const loaded = <T>(name: string, p: Promise<T>): Promise<T> =>
  p.catch((e: unknown) => {
    throw new ServiceError('capability_unavailable', `${name} is unavailable: ${e instanceof Error ? e.message : String(e)}`);
  });

// METEOR's synonyms: this thread's WordNet over the files it was given (or read), on first use.
const wordnet = async () => getWordNet();

// A load ends with one small inference: an ONNX session starts on its first run (hundreds of ms) and the
// verifier's checks compile on their first call, which would otherwise be the cost of a request. A remote
// verifier is not called: its server may not be up yet, and /ready probes it.
const WARM_UP_TEXT = 'How do I start?';
const WARM_UP_VERIFY: VerifyInput = {
  task: { description: 'def add(a, b): return their sum', solution_steps: ['Return a + b'], reference_code: 'def add(a, b):\n    return a + b' },
  context: [{ role: 'student', text: WARM_UP_TEXT }],
  candidates: ['What does the function get as its input?'],
};

async function loadModel(which: Model): Promise<string> {
  const s = configured();
  if (which === 'encoder') {
    const e = await encoderAt(s.encoderDir);
    await e.embed([WARM_UP_TEXT]);
    return e.manifest.name;
  }
  if (which === 'verifier') {
    const v = await verifierAt(s.verifierDir);
    if (v.info.kind !== 'remote') await v.verify(WARM_UP_VERIFY);
    return v.info.name;
  }
  await wordnet();
  return 'WordNet 3.0';
}

/** Loads a model (or WordNet) in this thread: the start-up warm-up behind /ready's capabilities (its error is the reason). */
export async function loadTask(which: Model, _stop: Stop): Promise<string> {
  const name = await loadModel(which);
  markLoaded(configured().models, which);
  return name;
}

/**
 * Loads the models the service has loaded so far, before this worker takes its first task: a worker that
 * replaces another (see retireTask) then serves its first request as fast as the one it replaced. A model
 * that fails here is reported by its first use, as at start.
 */
export async function preload(): Promise<void> {
  const s = configured();
  await loadUnlessClosing(s.models, () =>
    Promise.allSettled([
      wasLoaded(s.models, 'encoder') && encoderAt(s.encoderDir),
      wasLoaded(s.models, 'verifier') && verifierAt(s.verifierDir),
      wasLoaded(s.models, 'wordnet') && wordnet(),
    ]),
  );
}
