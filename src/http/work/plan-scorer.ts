import type { ScorePlanRequest } from '../../contracts/score-plan.js';
import type { PlanLimits } from '../../plan/parse.js';
import type { PlanScorer } from '../../runs/score-in-run.js';
import { compose, responseJson, type Judgement } from './plan-json.js';
import type { WorkPool } from './pool.js';

// Below this many plans a request is judged by one worker: splitting it would cost more in messages than
// the second core saves (measured in the README).
const MIN_PLANS_PER_TASK = 64;

/** Contiguous runs of groups with about equal plan counts, at most `parts` of them. */
export function splitGroups<G extends { completions: readonly unknown[] }>(groups: readonly G[], parts: number): G[][] {
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
  return {
    async judge(gate) {
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
      return { groups: results.flatMap((r) => r.groups), palette: results[0]!.palette };
    },
    compose(judged, options, weights) {
      const c = compose(judged, options, weights);
      return { summary: c.summary, raws: c.raws, write: (run) => responseJson(c, options, weights, run) };
    },
  };
}
