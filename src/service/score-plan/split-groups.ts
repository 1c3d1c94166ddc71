import type { ScorePlanRequest } from '../../contracts/score-plan.js';

// Below this many plans a request is judged by one worker: splitting it would cost more in messages than
// the second core saves.
export const MIN_PLANS_PER_TASK = 64;
// A request split across the workers goes in parts of at most this much completion text, two in flight
// per worker, so that the workers start while later parts are still being sent. Each part costs the main
// thread a message each way, so fewer and larger parts won over parts kept under glibc's 128 KiB mmap
// threshold (docs/concurrency.md): on a 64×8 batch over HTTP, services interleaved, parts under it were
// slower, parts somewhat smaller or larger than this about as fast, and one part per worker slower.
export const PART_MAX_CHARS = 288 * 1024;

/** How many completions (plans) some groups hold. */
export const completionCount = (groups: ScorePlanRequest['groups']): number => groups.reduce((n, g) => n + g.completions.length, 0);

/** Completion text of some groups, or Infinity when a completion is an object (its size is unknown). */
export function completionChars(groups: ScorePlanRequest['groups']): number {
  let n = 0;
  for (const g of groups) for (const c of g.completions) n += typeof c === 'string' ? c.length : Infinity;
  return n;
}

/**
 * Contiguous runs of groups: one per worker with about equal plan counts (none below MIN_PLANS_PER_TASK
 * plans), and a request split that way in runs of at most PART_MAX_CHARS of completion text instead, as
 * many as that takes (a group larger than that is a run of its own).
 */
export function splitGroups(groups: ScorePlanRequest['groups'], workers: number): ScorePlanRequest['groups'][] {
  const total = completionCount(groups);
  const k = Math.max(1, Math.min(workers, groups.length, Math.floor(total / MIN_PLANS_PER_TASK)));
  if (k === 1) return [[...groups]];
  const chars = groups.map((g) => completionChars([g]));
  const textual = chars.every(Number.isFinite);
  // Without text sizes (object completions), one run per worker by plan count.
  const weight = textual ? chars : groups.map((g) => g.completions.length);
  const all = weight.reduce((n, w) => n + w, 0);
  const cap = textual ? Math.min(PART_MAX_CHARS, Math.ceil(all / k)) : Math.ceil(all / k);
  const runs: ScorePlanRequest['groups'][] = [];
  let run: ScorePlanRequest['groups'] = [];
  let size = 0;
  for (const [i, g] of groups.entries()) {
    if (run.length > 0 && size + weight[i]! > cap) {
      runs.push(run);
      run = [];
      size = 0;
    }
    run.push(g);
    size += weight[i]!;
  }
  runs.push(run);
  return runs;
}
