import { InvalidRequest } from '../../common/errors.js';
import type { ScorePlanRequest } from '../../contracts/score-plan.js';

// Below this many plans a request is judged by one worker while the others are busy: split, it would cost
// more in messages than the second core saves.
const MIN_PLANS_PER_TASK = 64;
// Idle workers take parts down to this many plans: a batch of a few dozen plans from one client was judged
// faster on two idle workers than on one, while under load a split would only add messages.
export const MIN_PLANS_PER_IDLE_PART = 16;
// A request split across the workers goes in parts of at most this much completion text, two in flight
// per worker, so that the workers start while later parts are still being sent. Each part costs the main
// thread a message each way, so fewer and larger parts won over parts kept under glibc's 128 KiB mmap
// threshold (docs/concurrency.md): on a 64×8 batch over HTTP, services interleaved, parts under it were
// slower, parts somewhat smaller or larger than this about as fast, and one part per worker slower.
export const PART_MAX_CHARS = 288 * 1024;

/** How many completions (plans) some groups hold. */
export const completionCount = (groups: ScorePlanRequest['groups']): number => groups.reduce((n, g) => n + g.completions.length, 0);

/** The 400 for a request over MAX_PLANS_PER_REQUEST. */
export function checkPlanCount(plans: number, most: number): void {
  if (plans > most) {
    throw new InvalidRequest(`${plans} completions in one request, over MAX_PLANS_PER_REQUEST=${most}`, [
      { path: '$.groups', message: `at most ${most} completions in all` },
    ]);
  }
}

/** Completion text of some groups, or Infinity when a completion is an object (its size is unknown). */
export function completionChars(groups: ScorePlanRequest['groups']): number {
  let n = 0;
  for (const g of groups) for (const c of g.completions) n += typeof c === 'string' ? c.length : Infinity;
  return n;
}

/**
 * How many workers `plans` plans go to: one per MIN_PLANS_PER_TASK, or while at least two workers are
 * `idle`, one per MIN_PLANS_PER_IDLE_PART up to those idle; at least one, at most `workers`.
 */
export function partCount(plans: number, workers: number, idle = 0): number {
  const bySize = Math.floor(plans / MIN_PLANS_PER_TASK);
  const byIdle = idle >= 2 ? Math.min(idle, Math.floor(plans / MIN_PLANS_PER_IDLE_PART)) : 0;
  return Math.max(1, Math.min(workers, Math.max(bySize, byIdle)));
}

/**
 * Contiguous runs of groups: one per worker with about equal plan counts (none below MIN_PLANS_PER_TASK
 * plans, or below MIN_PLANS_PER_IDLE_PART when at least two of the workers are `idle`), and a request split
 * that way in runs of at most PART_MAX_CHARS of completion text instead, as many as that takes (a group
 * larger than that is a run of its own).
 */
export function splitGroups(groups: ScorePlanRequest['groups'], workers: number, idle = 0): ScorePlanRequest['groups'][] {
  const k = Math.min(groups.length, partCount(completionCount(groups), workers, idle));
  if (k === 1) return [[...groups]];
  const chars = groups.map((g) => completionChars([g]));
  // Without text sizes (object completions), one run per worker by plan count.
  const textual = chars.every(Number.isFinite);
  const runs = runsOf(textual ? chars : groups.map((g) => g.completions.length), k, textual ? PART_MAX_CHARS : Infinity);
  return runs.map(([from, to]) => groups.slice(from, to));
}

/** A run of a body's groups in its bytes: bytes [start, end) hold groups `first` on, joined by commas. */
export interface BytesPart {
  start: number;
  end: number;
  first: number;
  /** Each group's bytes, [start, end) pairs from the run's start: a worker reads the groups one by one. */
  ranges: number[];
}

/**
 * The groups of a body read as bytes (groups-layout.ts) in runs as splitGroups cuts parsed ones, by their
 * JSON's size: such a body is large, so it goes to all the workers.
 */
export function splitLayout(starts: readonly number[], ends: readonly number[], workers: number): BytesPart[] {
  const k = Math.max(1, Math.min(workers, starts.length));
  return runsOf(
    starts.map((s, i) => ends[i]! - s),
    k,
    PART_MAX_CHARS,
  ).map(([from, to]) => runPart(starts, ends, from, to));
}

/** The groups [from, to) of those at `starts`/`ends` as one BytesPart. */
export function runPart(starts: readonly number[], ends: readonly number[], from: number, to: number): BytesPart {
  const start = starts[from]!;
  const ranges: number[] = [];
  for (let i = from; i < to; i++) ranges.push(starts[i]! - start, ends[i]! - start);
  return { start, end: ends[to - 1]!, first: from, ranges };
}

/**
 * Index ranges [from, to) of contiguous runs: about `k` of about equal weight (an item goes to the run that
 * its middle falls in), none over `cap` unless one item is.
 */
function runsOf(weight: readonly number[], k: number, cap: number): [number, number][] {
  const share = weight.reduce((n, w) => n + w, 0) / k;
  const runs: [number, number][] = [];
  let from = 0;
  let size = 0;
  for (const [i, w] of weight.entries()) {
    if (i > from && (size + w > cap || size + w / 2 > share)) {
      runs.push([from, i]);
      from = i;
      size = 0;
    }
    size += w;
  }
  runs.push([from, weight.length]);
  return runs;
}
