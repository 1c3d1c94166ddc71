import type { ScorePlanRequest } from '../../src/contracts/score-plan.js';
import { resolvePalette } from '../../src/plan/palette.js';
import type { PlanLimits } from '../../src/plan/parse.js';
import { composeGroups, evaluateGroups, paletteInfo, planDetail, tallyOf, type EvaluatedGroup } from '../../src/scoring/score-groups.js';
import { VERSIONS } from '../../src/scoring/versions.js';
import type { PlanScorer } from '../../src/service/score-plan/in-run.js';

/** Judging and writing on the calling thread: the reference the pooled scorer is held to, and the bench's. */
export function localScorer(req: ScorePlanRequest, limits: PlanLimits): PlanScorer<EvaluatedGroup[]> {
  const palette = resolvePalette(req.palette);
  return {
    judge: async (gate) => evaluateGroups(req.groups, palette, limits, gate),
    tally: (judged) =>
      tallyOf(
        judged.flatMap((g) => g.plans),
        judged,
      ),
    compose(judged, options, weights) {
      const { groups, summary } = composeGroups(judged, options, weights, req.options?.detail === 'rewards' ? () => ({}) : planDetail);
      return { summary, write: (run) => [Buffer.from(JSON.stringify({ groups, weights, options, palette: paletteInfo(palette), versions: VERSIONS, run }))] };
    },
  };
}
