// The CPU-bound work of the routes, as tasks a worker thread runs (or the main thread, with WORKERS=0).
// Each task takes and returns plain data (structured clone); domain errors a client caused come back as
// values, since an error's class does not survive the thread boundary.
import { resolve } from 'node:path';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isMainThread, workerData } from 'node:worker_threads';
import type { EvaluateDialogueRequest, EvaluateTextCorpusRequest, EvaluateTextRequest } from '../../contracts/evaluate.js';
import type { EvaluatePlanRequest } from '../../contracts/evaluate-plan.js';
import type { Profile } from '../../contracts/profile.js';
import { FitRequestSchema } from '../../contracts/trace-knowledge.js';
import { readJsonBody, type BodyIssue } from '../json-body.js';
import { ScorePlanRequestSchema, type ScorePlanRequest } from '../../contracts/score-plan.js';
import { fingerprint } from '../../runs/idempotency.js';
import { joinMovable, movableBytes } from './mapped.js';
import { loadUnlessClosing, markLoaded, wasLoaded } from './model-flags.js';
import { splitGroups } from './split-groups.js';
import { evaluateDialogue } from '../../metrics/evaluate-dialogue.js';
import type { TextMetric } from '../../contracts/evaluate.js';
import { corpusScores, TextTooLong, textScores } from '../../metrics/text-scores.js';
import { resolvePalette } from '../../plan/palette.js';
import { parsePlan, type PlanLimits } from '../../plan/parse.js';
import { evaluatePlanMetrics } from '../../plan-metrics/index.js';
import type { GateOptions } from '../../scoring/evaluate-plan.js';
import { evaluateGroups, paletteInfo, planDetail, type EvaluatedGroup, type Judged } from '../../scoring/score-groups.js';
import { evaluateSamples } from '../../scoring/score-samples.js';
import type { SentenceEncoder } from '../../text/encoder.js';
import { fitBySkill, FitStopped, type FitOptions, type FitResult } from '../../tracing/em.js';
import { traceKnowledge, type TraceInput } from '../../tracing/trace.js';
import type { TurnVerifier, VerifyInput } from '../../verify/model.js';

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
}

/** A client-caused failure, carried across the thread boundary by name. */
export interface TaskFailure {
  failure: 'text-too-long' | 'fit-input' | 'unavailable' | 'abandoned' | 'invalid-json' | 'invalid-body' | 'deadline';
  message: string;
  /** invalid-json, invalid-body: the fields at fault. */
  issues?: BodyIssue[];
  /** deadline: the deadline that passed, ms. */
  deadlineMs?: number;
}

/** The buffers of a task's result that cross back to the main thread moved rather than copied (worker.ts). */
export const transfers = new WeakMap<object, ArrayBuffer[]>();

/** True once the request behind a task is abandoned (deadline passed, client gone). */
export type Stop = () => boolean;

let settings = (workerData as { settings?: WorkerSettings } | null)?.settings;

/** WORKERS=0: the main thread runs the tasks itself. */
export function settleInProcess(s: WorkerSettings): void {
  settings = s;
}

const configured = (): WorkerSettings => {
  if (!settings) throw new Error('task module used before its settings were given');
  return settings;
};

// Each thread loads the models once, on first use, one per directory (the default verifier shares
// ENCODER_DIR's encoder). Keyed by directory, several in-process services (WORKERS=0) in one process each
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
const encoder = () => loaded('sentence encoder', encoderAt(configured().encoderDir));
const verifiers = new Map<string, Promise<TurnVerifier>>();
function verifierAt(dir: string): Promise<TurnVerifier> {
  return loadOnce(verifiers, dir, () => {
    const threads = configured().intraOpThreads;
    return import('../../verify/verifier.js').then(({ loadVerifier }) => loadVerifier(dir, encoderAt, threads));
  });
}
const verifier = () => loaded('turn verifier', verifierAt(configured().verifierDir));

class Unavailable extends Error {
  override name = 'Unavailable';
}
class FitInput extends Error {
  override name = 'FitInput';
}
const loaded = <T>(name: string, p: Promise<T>): Promise<T> =>
  p.catch((e: unknown) => {
    throw new Unavailable(`${name} is unavailable: ${e instanceof Error ? e.message : String(e)}`);
  });

/** Runs a task, unless its request was abandoned while it waited, turning the errors a client caused into values. */
async function task<T>(stop: Stop, f: () => T | Promise<T>): Promise<T | TaskFailure> {
  if (stop()) return { failure: 'abandoned', message: 'abandoned before it started' };
  try {
    return await f();
  } catch (e) {
    if (e instanceof TextTooLong) return { failure: 'text-too-long', message: e.message };
    if (e instanceof FitInput) return { failure: 'fit-input', message: e.message };
    if (e instanceof Unavailable) return { failure: 'unavailable', message: e.message };
    throw e;
  }
}

/**
 * A judged plan as it crosses back to the main thread: what composition needs, and where in its part's
 * `details` the rest of its response object lies, already as UTF-8 JSON.
 */
export interface WireJudgedPlan extends Judged {
  /** Byte range of `"components":…,"violations":…,"normalizations":…,"topology":…`, the tail of the plan's response object. */
  detail: [start: number, end: number];
}

export interface ScoreGroupsInput {
  /** The groups, or the JSON of them as readScorePlanTask wrote it. */
  groups: ScorePlanRequest['groups'] | Uint8Array;
  palette: ScorePlanRequest['palette'];
  limits: PlanLimits;
  gate: GateOptions;
  /** Write the groups' JSON too (fingerprintOfParts), after the details. */
  json?: boolean;
}

/**
 * The judged groups, each plan's detail written into one buffer moved back with them: as bytes outside the
 * JavaScript heap, the ~2 KB per plan no longer costs the main thread's garbage collector (4,096 plans
 * held it for 25–55 ms at a time as strings).
 */
export function evaluateGroupsTask(input: ScoreGroupsInput, stop: Stop) {
  return task(stop, () => {
    const palette = resolvePalette(input.palette);
    const given = input.groups instanceof Uint8Array ? (JSON.parse(utf8(input.groups)) as ScorePlanRequest['groups']) : input.groups;
    const judged = evaluateGroups(given, palette, input.limits, input.gate);
    const texts = judged.flatMap((g) => g.plans.map((e) => JSON.stringify(planDetail(e))));
    // The groups' JSON texts joined by commas (the array's, without its brackets), after the details.
    const json = input.json ? JSON.stringify(given).slice(1, -1) : '';
    // Each text is encoded straight into the buffer that is moved: no copy per plan, no second join.
    const details = movableBytes(texts.reduce((n, t) => n + Buffer.byteLength(t), Buffer.byteLength(json)));
    const ranges: Array<[number, number]> = [];
    let at = 0;
    for (const t of texts) {
      const end = at + utf8Encoder.encodeInto(t, details.subarray(at)).written;
      // Without the object's braces: the main thread writes the fields after the composed ones.
      ranges.push([at + 1, end - 1]);
      at = end;
    }
    const jsonRange: [number, number] = [at, at + utf8Encoder.encodeInto(json, details.subarray(at)).written];
    let k = 0;
    const groups: EvaluatedGroup<WireJudgedPlan>[] = judged.map((g) => ({
      ...g,
      plans: g.plans.map((e) => ({ gate: e.gate, raw: e.raw, gaming_flags: e.gaming_flags, detail: ranges[k++]! })),
    }));
    const out = { groups, palette: paletteInfo(palette), details, json: input.json ? jsonRange : undefined };
    transfers.set(out, [details.buffer]);
    return out;
  });
}

const utf8Encoder = new TextEncoder();
const utf8 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');

export interface ReadScorePlanInput {
  /** The request body as the client sent it. */
  json: Uint8Array;
  maxDepth: number;
  /** Workers to split the groups for (splitGroups). */
  workers: number;
  /** Whether the request carries an Idempotency-Key, whose receipt needs the request's fingerprint. */
  fingerprint: boolean;
}

/**
 * A large /score-plan body read here: parsed and validated as the main thread would (the same 400s), and its
 * groups cut into the parts the workers judge, as the JSON of each, one after the other in `json` (moved
 * to the main thread, not copied), part i ending at byte `ends[i]`. Decoding, parsing and validating 13 MB
 * held the main thread ~90 ms at once.
 */
export function readScorePlanTask(input: ReadScorePlanInput, stop: Stop) {
  return task(stop, () => {
    const read = readJsonBody(utf8(input.json), ScorePlanRequestSchema, input.maxDepth);
    if (!read.ok) return { failure: read.kind, message: read.message, issues: read.issues } satisfies TaskFailure;
    const { groups, ...head } = read.value;
    // A buffer of its own, never a slice of Node's shared pool: it is moved.
    const { bytes: json, ends } = joinMovable(splitGroups(groups, input.workers).map((p) => Buffer.from(JSON.stringify(p))));
    const out = {
      head,
      plans: groups.reduce((n, g) => n + g.completions.length, 0),
      fingerprint: input.fingerprint ? fingerprint(read.value) : undefined,
      json,
      ends,
    };
    transfers.set(out, [json.buffer]);
    return out;
  });
}

export function evaluateSamplesTask(
  input: { samples: { completion: unknown; profile: Profile; query: string | null }[]; limits: PlanLimits; gate: GateOptions },
  stop: Stop,
) {
  return task(stop, (): Judged[] =>
    evaluateSamples(input.samples, input.limits, input.gate).map((e) => ({ gate: e.gate, raw: e.raw, gaming_flags: e.gaming_flags })),
  );
}

export function textScoresTask(input: { body: EvaluateTextRequest; metrics: TextMetric[] }, stop: Stop) {
  return task(stop, () => textScores(input.body.hypothesis, input.body.references, input.metrics, input.body.options?.smooth));
}

export function corpusScoresTask(input: { body: EvaluateTextCorpusRequest; metrics: TextMetric[] }, stop: Stop) {
  return task(stop, () => corpusScores(input.body.pairs, input.metrics, input.body.options?.smooth));
}

/** Every metric but the LLM judge, which waits on the network and stays on the main thread. */
export function evaluateDialogueTask(body: EvaluateDialogueRequest, stop: Stop) {
  return task(stop, () => evaluateDialogue(body, { encoder, judge: null }));
}

export function evaluatePlansTask(input: { body: EvaluatePlanRequest; limits: PlanLimits }, stop: Stop) {
  return task(stop, async () => {
    const { plans, gold, palette, options } = input.body;
    const parsed = plans.map((p) => parsePlan(p.plan, input.limits));
    const goldParsed = gold === undefined ? undefined : parsePlan(gold, input.limits);
    const readable = parsed.flatMap((p, index) => (p.ok ? [{ index, plan: p.plan, profile: plans[index]!.profile }] : []));
    const e = await encoder();
    const report = await evaluatePlanMetrics(readable, {
      gold: goldParsed?.ok ? goldParsed.plan : undefined,
      embed: (texts) => e.embed(texts),
      deltaTbq: options?.delta_tbq,
      kappa: options?.kappa,
      gedTimeoutMs: options?.ged_timeout_ms,
      palette,
      stop,
    });
    return { parsed, goldParsed, readable: readable.map((r) => r.index), report };
  });
}

export interface FitJsonInput {
  /** The request body as the client sent it, UTF-8. */
  json: Uint8Array;
  maxDepth: number;
  /** When the request arrived (Date.now()) and the server's deadline: the body may lower it. */
  arrivedAt: number;
  deadlineMs: number;
}

/** /trace-knowledge/fit from its body's bytes: decoded, read, validated and fitted here, so the main thread only passes them on. */
export function fitJsonTask(input: FitJsonInput, stop: Stop) {
  return task(stop, (): { rows: number; fits: [string, FitResult][] } | TaskFailure => {
    const read = readJsonBody(utf8(input.json), FitRequestSchema, input.maxDepth);
    if (!read.ok) return { failure: read.kind, message: read.message, issues: read.issues };
    const { rows, options = {} } = read.value;
    const deadlineMs = Math.min(input.deadlineMs, options.deadline_ms ?? input.deadlineMs);
    const fitOptions: FitOptions = {
      restarts: options.restarts,
      maxIterations: options.max_iterations,
      tolerance: options.tolerance,
      seed: options.seed,
      forgets: options.forgets,
      maxGuess: options.max_guess,
      maxSlip: options.max_slip,
      // The server's deadline also terminates this worker; a lower one from the body is only known here.
      stop: () => stop() || Date.now() - input.arrivedAt > deadlineMs,
    };
    try {
      return { rows: rows.length, fits: [...fitBySkill(rows, fitOptions)] };
    } catch (e) {
      if (e instanceof FitStopped) return { failure: 'deadline', message: e.message, deadlineMs };
      // The fit's documented signal for input that cannot be fitted (e.g. `order` on some rows only).
      throw e instanceof RangeError ? new FitInput(e.message) : e;
    }
  });
}

export function traceTask(input: Omit<TraceInput, 'embed'>, stop: Stop) {
  return task(stop, async () => {
    const e = await encoder();
    const result = await traceKnowledge({ ...input, embed: (texts) => e.embed(texts) });
    return { result, encoder: e.manifest.name };
  });
}

export function verifyTask(input: VerifyInput, stop: Stop) {
  return task(stop, async () => {
    const v = await verifier();
    return { verification: await v.verify(input), info: v.info };
  });
}

/** Loads a model in this thread: the start-up check behind /ready's capabilities (its error is the reason). */
export async function loadTask(which: 'encoder' | 'verifier', _stop: Stop): Promise<string> {
  const s = configured();
  const name = which === 'encoder' ? (await encoderAt(s.encoderDir)).manifest.name : (await verifierAt(s.verifierDir)).info.name;
  markLoaded(s.models, which);
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
    Promise.allSettled([wasLoaded(s.models, 'encoder') && encoderAt(s.encoderDir), wasLoaded(s.models, 'verifier') && verifierAt(s.verifierDir)]),
  );
}

const started = Date.now();
/**
 * Ends this worker thread, whose heap and malloc arenas then go back to the system at once; piscina starts
 * a fresh worker in its place. A worker started after `round` (ms since the epoch) is already fresh and stays.
 */
export async function retireTask(round: number, _stop: Stop): Promise<'fresh'> {
  if (isMainThread) throw new Error('retireTask ends a worker thread; the main thread has none to end');
  if (started > round) return 'fresh';
  process.exit(0);
}

let fullCollection: (() => void) | undefined;
/**
 * A full garbage collection of this thread's heap, with the heap's size before and after it, bytes. V8
 * returns a heap's freed pages to the system only after one, and an idle pool worker runs none.
 */
export async function collectTask(_input: null, _stop: Stop): Promise<{ before: number; after: number }> {
  if (!fullCollection) {
    // The flag turned on at run time exposes `gc` to contexts made after it: no --expose-gc in `npm start`.
    setFlagsFromString('--expose-gc');
    fullCollection = runInNewContext('gc') as () => void;
  }
  const before = getHeapStatistics().total_heap_size;
  fullCollection();
  return { before, after: getHeapStatistics().total_heap_size };
}
