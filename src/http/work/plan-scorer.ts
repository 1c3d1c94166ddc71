import { setImmediate as nextTurn } from 'node:timers/promises';
import { bounded } from '../../common/bounded.js';
import type { ScorePlanRequest } from '../../contracts/score-plan.js';
import type { PlanLimits } from '../../plan/parse.js';
import type { PlanScorer } from '../../runs/score-in-run.js';
import { tallyOf } from '../../scoring/score-groups.js';
import { compose, responseJson, type Judgement } from './plan-json.js';
import { unwrap, type WorkPool } from './pool.js';
import { evaluateGroupsTask } from './tasks.js';

// Below this many plans a request is judged by one worker: splitting it would cost more in messages than
// the second core saves.
const MIN_PLANS_PER_TASK = 64;
// A request split across the workers goes in parts of at most this much completion text, a few in flight
// per worker: each part's message then stays under glibc's 128 KiB mmap threshold (docs/concurrency.md,
// Memory), so it is not mapped and faulted in afresh, and the workers start while later parts are still
// being sent. 64×8 p50 over HTTP, three interleaved pairs: 182, 201, 184 ms in two parts; 150, 176, 159
// in 27 parts.
const PART_MAX_CHARS = 96 * 1024;
const PARTS_IN_FLIGHT_PER_WORKER = 2;
// Up to this much completion text a request is judged on the main thread: a one-plan request took 3.8 ms
// through a worker against 2.9 ms in process (p50), judging it takes well under a millisecond, and no
// probe notices that.
const INLINE_MAX_CHARS = 16 * 1024;
// From this many plans composing and writing the response are separate turns of the event loop, so a
// probe waits for one of them, not both: for 4,096 plans each is tens of milliseconds.
const YIELD_FROM_PLANS = 512;

/** Completion text of some groups, or Infinity when a completion is an object (its size is unknown). */
function completionChars(groups: ScorePlanRequest['groups']): number {
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
  const total = groups.reduce((n, g) => n + g.completions.length, 0);
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

/**
 * /score-plan's plans judged on the pool, a large request's groups split across the workers (groups are
 * independent, so the split changes no result), and composed on the main thread.
 */
export function pooledScorer(req: ScorePlanRequest, limits: PlanLimits, pool: WorkPool, signal: AbortSignal): PlanScorer<Judgement> {
  const large = req.groups.reduce((n, g) => n + g.completions.length, 0) >= YIELD_FROM_PLANS;
  return {
    async judge(gate) {
      if (completionChars(req.groups) <= INLINE_MAX_CHARS) {
        return unwrap(await evaluateGroupsTask({ groups: req.groups, palette: req.palette, limits, gate }, () => signal.aborted));
      }
      // One failed part stops the others.
      const parts = new AbortController();
      const either = AbortSignal.any([signal, parts.signal]);
      const workers = Math.max(1, pool.workers);
      const results = await bounded(
        workers * PARTS_IN_FLIGHT_PER_WORKER,
        splitGroups(req.groups, workers).map(
          (groups) => () =>
            pool.run('evaluateGroupsTask', { groups, palette: req.palette, limits, gate }, either).catch((e: unknown) => {
              parts.abort(e);
              throw e;
            }),
        ),
      );
      // The parts' messages were read in turns of their own; composing gets its own too.
      if (results.length > 1) await nextTurn();
      return { groups: results.flatMap((r) => r.groups), palette: results[0]!.palette };
    },
    tally: (judged) =>
      tallyOf(
        judged.groups.flatMap((g) => g.plans),
        judged.groups,
      ),
    compose(judged, options, weights) {
      const c = compose(judged, options, weights, req.options?.detail !== 'rewards');
      return {
        summary: c.summary,
        write: async (run) => {
          if (large) await nextTurn();
          return responseJson(c, options, weights, run);
        },
      };
    },
  };
}
