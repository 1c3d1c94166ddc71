import { setImmediate as nextTurn } from 'node:timers/promises';
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
// Up to this much completion text a request is judged on the main thread: a one-plan request took 3.8 ms
// through a worker against 2.9 ms in process (p50), judging it takes well under a millisecond, and no
// probe notices that.
const INLINE_MAX_CHARS = 16 * 1024;
// From this many plans composing and writing the response are separate turns of the event loop, so a
// probe waits for one of them, not both: for 4,096 plans each is tens of milliseconds.
const YIELD_FROM_PLANS = 512;

/** Completion text of a request, or Infinity when a completion is an object (its size is unknown). */
function completionChars(groups: ScorePlanRequest['groups']): number {
  let n = 0;
  for (const g of groups) for (const c of g.completions) n += typeof c === 'string' ? c.length : Infinity;
  return n;
}

/** Contiguous runs of groups with about equal plan counts, at most `parts` of them. */
function splitGroups<G extends { completions: readonly unknown[] }>(groups: readonly G[], parts: number): G[][] {
  const total = groups.reduce((n, g) => n + g.completions.length, 0);
  const k = Math.max(1, Math.min(parts, groups.length, Math.floor(total / MIN_PLANS_PER_TASK)));
  const chunks: G[][] = [];
  let chunk: G[] = [];
  let seen = 0;
  for (const g of groups) {
    chunk.push(g);
    seen += g.completions.length;
    if (chunks.length < k - 1 && seen >= ((chunks.length + 1) * total) / k) {
      chunks.push(chunk);
      chunk = [];
    }
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
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
      const results = await Promise.all(
        splitGroups(req.groups, Math.max(1, pool.workers)).map((groups) =>
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
