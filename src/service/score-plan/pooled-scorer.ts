import { setImmediate as nextTurn } from 'node:timers/promises';
import { bounded } from '../../common/bounded.js';
import type { ScorePlanRequest } from '../../contracts/score-plan.js';
import type { PlanLimits } from '../../plan/parse.js';
import type { PlanScorer, RunRequest } from './in-run.js';
import { tallyOf } from '../../scoring/score-groups.js';
import { compose, judgementOf, responseJson, type Judgement } from './plan-json.js';
import { judgeJudgement, type PlanJudge } from './plan-judge.js';
import { judgeOff } from '../../metrics/judge/client.js';
import { InvalidRequest } from '../../common/errors.js';
import { unwrap, type WorkPool } from '../pool/pool.js';
import { joinMovable } from '../../common/movable-bytes.js';
import { checkPlanCount, completionChars, splitGroups, type BytesPart } from './split-groups.js';
import { evaluateGroupsTask } from '../tasks/index.js';
import type { ScoreGroupsInput } from '../tasks/plans.js';

const PARTS_IN_FLIGHT_PER_WORKER = 2;
// Up to this much completion text a request is judged on the main thread: a one-plan request was slower
// through a worker than in process (the messages cost more than the judging), and judging it is too
// short for any probe to notice.
const INLINE_MAX_CHARS = 16 * 1024;
// From this many plans composing and writing the response yield the event loop between stretches, so a
// probe waits for one stretch, not for the whole, which for thousands of plans is long.
const YIELD_FROM_PLANS = 512;

/**
 * A /score-plan request's groups: parsed on the main thread, or bytes in runs (BytesPart) that the workers
 * read themselves. `plans` is known unless the bytes are the client's own: then it is known once they are
 * read, and the request's limit is checked then.
 */
export type ScorableGroups = { groups: ScorePlanRequest['groups']; plans: number } | { bytes: Uint8Array; parts: readonly BytesPart[]; plans?: number };

/** How the groups are judged: the request's palette and limits, and the service's LLM judge if it has one. */
export interface JudgeSettings {
  palette: ScorePlanRequest['palette'];
  limits: PlanLimits;
  maxDepth: number;
  maxPlans: number;
  planJudge?: PlanJudge | null;
}

/**
 * /score-plan's plans judged on the pool, a large request's groups split across the workers (groups are
 * independent, so the split changes no result), and composed on the main thread.
 */
export function pooledScorer(req: RunRequest, source: ScorableGroups, settings: JudgeSettings, pool: WorkPool, signal: AbortSignal): PlanScorer<Judgement> {
  const workers = Math.max(1, pool.workers);
  const details = req.options?.detail !== 'rewards';
  const llm = req.options?.judge === true ? llmJudgeOf(settings) : undefined;
  return {
    async judge(gate) {
      const { palette, limits, maxDepth } = settings;
      if (llm && gate.reward_profile !== 'guarded') {
        throw new InvalidRequest('the LLM judge scales the guarded reward', [
          {
            path: '$.options.judge',
            message: 'set options.reward_profile to "guarded" (this request is scored in the paper profile, which the judge never changes)',
          },
        ]);
      }
      const task = { palette, limits, gate, details, maxDepth, judge: llm !== undefined };
      const judged = async (j: Judgement) => (llm ? judgeJudgement(llm, j, signal) : j);
      if ('groups' in source && completionChars(source.groups) <= INLINE_MAX_CHARS) {
        return judged(judgementOf([unwrap(await evaluateGroupsTask({ ...task, groups: source.groups }, () => signal.aborted))]));
      }
      // One failed part stops the others.
      const parts = new AbortController();
      const either = AbortSignal.any([signal, parts.signal]);
      const run = (groups: ScoreGroupsInput['groups'], first: number, transfer: ArrayBuffer[] = []) =>
        pool.run('evaluateGroupsTask', { ...task, groups, first }, either, transfer).catch((e: unknown) => {
          parts.abort(e);
          throw e;
        });
      // A part of a body the workers share is read in place; one of bytes a worker read goes as a copy,
      // moved: the request may be judged again (memoJudge).
      const part = (bytes: Uint8Array, p: BytesPart) => {
        if (bytes.buffer instanceof SharedArrayBuffer) return run({ bytes: bytes.subarray(p.start, p.end), ranges: p.ranges }, p.first);
        const copy = joinMovable([bytes.subarray(p.start, p.end)]).bytes;
        return run({ bytes: copy, ranges: p.ranges }, p.first, [copy.buffer]);
      };
      const inputs =
        'groups' in source
          ? splitGroups(source.groups, workers, pool.idle()).map((groups) => () => run(groups, 0))
          : source.parts.map((p) => () => part(source.bytes, p));
      const results = await bounded(workers * PARTS_IN_FLIGHT_PER_WORKER, inputs);
      const judgement = judgementOf(results);
      if (source.plans === undefined) checkPlanCount(planCount(judgement), settings.maxPlans);
      // The parts' messages were read in turns of their own; composing gets its own too.
      if (results.length > 1) await nextTurn();
      return judged(judgement);
    },
    tally: (judged) =>
      tallyOf(
        judged.groups.flatMap((g) => g.plans),
        judged.groups,
      ),
    compose(judged, options, weights) {
      const c = compose(judged, options, weights, details);
      const large = planCount(judged) >= YIELD_FROM_PLANS;
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

/** The service's LLM judge, for a request that asks for it; a 400 when the service has none. */
function llmJudgeOf(settings: JudgeSettings): PlanJudge {
  if (settings.planJudge) return settings.planJudge;
  throw judgeOff();
}

const planCount = (j: Judgement) => j.groups.reduce((n, g) => n + g.plans.length, 0);
