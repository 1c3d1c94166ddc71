import { EXAMPLE_SCORE_REQUEST } from '../contracts/examples.js';
import type { PlanLimits } from '../plan/parse.js';
import { scoreGroups, type ScoringDefaults } from './score-groups.js';

/**
 * Scores the built-in example group and checks the outcome a correct scorer must give: the clean plan
 * passes the gate with all four Merrill phases, the cyclic one and the truncated one are gated and rank
 * below it. It also warms the regular expressions and the JIT before /ready says yes.
 */
export function selfCheck(limits: PlanLimits, defaults: ScoringDefaults): { ok: true } | { ok: false; reason: string } {
  try {
    const { response } = scoreGroups(EXAMPLE_SCORE_REQUEST, limits, defaults);
    const [clean, cyclic, broken] = response.groups[0]!.plans;
    if (!clean || clean.gate.failed || clean.components?.ped.value !== 1) return { ok: false, reason: 'example plan not scored as clean' };
    if (!cyclic?.gate.reasons.includes('cycle')) return { ok: false, reason: 'cycle not gated' };
    if (!broken?.gate.reasons.includes('parse_error')) return { ok: false, reason: 'unparseable plan not gated' };
    if (!(clean.reward > cyclic.reward && clean.reward > broken.reward)) return { ok: false, reason: 'gated plan outranks clean plan' };
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}
