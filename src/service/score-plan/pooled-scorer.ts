import { setImmediate as nextTurn } from 'node:timers/promises';
import { bounded } from '../../common/bounded.js';
import type { ScorePlanRequest } from '../../contracts/score-plan.js';
import type { PlanLimits } from '../../plan/parse.js';
import type { PlanScorer, RunRequest } from './in-run.js';
import { tallyOf } from '../../scoring/score-groups.js';
import { compose, judgementOf, responseJson, type Judgement } from './plan-json.js';
import { unwrap, type WorkPool } from '../pool/pool.js';
import { joinMovable } from '../../common/movable-bytes.js';
import { completionChars, splitGroups } from './split-groups.js';
import { evaluateGroupsTask } from '../tasks/index.js';

const PARTS_IN_FLIGHT_PER_WORKER = 2;
// Up to this much completion text a request is judged on the main thread: a one-plan request was slower
// through a worker than in process (the messages cost more than the judging), and judging it is too
// short for any probe to notice.
const INLINE_MAX_CHARS = 16 * 1024;
// From this many plans composing and writing the response yield the event loop between stretches, so a
// probe waits for one stretch, not for the whole, which for thousands of plans is long.
const YIELD_FROM_PLANS = 512;

/**
 * A /score-plan request's groups: parsed on the main thread, or read on a worker (readScorePlanTask) and
 * kept as the JSON of the parts it cut them into, part i ending at byte `ends[i]` of `json`.
 */
export type ScorableGroups = ({ groups: ScorePlanRequest['groups'] } | { json: Uint8Array; ends: readonly number[] }) & { plans: number };

/**
 * /score-plan's plans judged on the pool, a large request's groups split across the workers (groups are
 * independent, so the split changes no result), and composed on the main thread. With `json`, the
 * judgement carries the parsed groups' JSON (for the request's fingerprint).
 */
export function pooledScorer(
  req: RunRequest & Pick<ScorePlanRequest, 'palette'>,
  source: ScorableGroups,
  limits: PlanLimits,
  pool: WorkPool,
  signal: AbortSignal,
  json = false,
): PlanScorer<Judgement> {
  const large = source.plans >= YIELD_FROM_PLANS;
  const workers = Math.max(1, pool.workers);
  return {
    async judge(gate) {
      // Parsed groups may come back as JSON too (Judgement.json); a part read on a worker is JSON already.
      const task = { palette: req.palette, limits, gate, json: json && 'groups' in source, details: req.options?.detail !== 'rewards' };
      if ('groups' in source && completionChars(source.groups) <= INLINE_MAX_CHARS) {
        return judgementOf([unwrap(await evaluateGroupsTask({ ...task, groups: source.groups }, () => signal.aborted))]);
      }
      // One failed part stops the others.
      const parts = new AbortController();
      const either = AbortSignal.any([signal, parts.signal]);
      const run = (groups: ScorePlanRequest['groups'] | Uint8Array) =>
        pool.run('evaluateGroupsTask', { ...task, groups }, either, groups instanceof Uint8Array ? [groups.buffer as ArrayBuffer] : []).catch((e: unknown) => {
          parts.abort(e);
          throw e;
        });
      // A part read on a worker goes as a copy of its bytes, moved: the request may be judged again (memoJudge).
      const inputs =
        'groups' in source
          ? splitGroups(source.groups, workers).map((groups) => () => run(groups))
          : source.ends.map((end, i) => () => run(joinMovable([source.json.subarray(source.ends[i - 1] ?? 0, end)]).bytes));
      const results = await bounded(workers * PARTS_IN_FLIGHT_PER_WORKER, inputs);
      // The parts' messages were read in turns of their own; composing gets its own too.
      if (results.length > 1) await nextTurn();
      return judgementOf(results);
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
          return responseJson(c, run, large ? nextTurn : undefined);
        },
      };
    },
  };
}
