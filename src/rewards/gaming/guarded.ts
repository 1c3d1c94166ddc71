import type { GuardedCredit } from '../../contracts/gaming.js';
import type { PersonalizationReward, StructuralReward } from '../../contracts/results.js';
import { SCORED_PHASES } from '../pedagogy/phases.js';
import type { GamingReading } from './signals.js';
import { GUARDED } from './thresholds.js';

// The guarded reward (docs/rewards.md §10): the paper's three axes, each crediting only what the plan
// does in text of its own, then scaled down once per gaming signal that fired.
export function guardedCredit(
  struct: StructuralReward,
  pers: PersonalizationReward | null,
  reading: GamingReading,
  steps: number,
  declaredEdges: number,
): GuardedCredit {
  // docs/rewards.md §10.3a: R̃_struct = (DAG + D̃C + ATR) / 3, D̃C = 0 when a plan of two or more steps declares no dependency
  const dc = steps >= 2 && declaredEdges === 0 ? 0 : struct.dc;
  // §10.3b: R̃_pers = |signals credited by sentences of the plan's own| / max(1, |C(I_p)|)
  const named = pers ? pers.hits.filter((h) => reading.signalsInSentences.has(h.id)).length : 0;
  const total = pers ? pers.hits.length + pers.misses.length : 0;
  // §10.3c: R̃_ped = |scored phases some step enacts| / 4
  const enacted = SCORED_PHASES.filter((p) => reading.enactedPhases.has(p)).length;
  // §10.3d: m = (1 − π)^|signals fired|, R^g_k = m · R̃_k
  const multiplier = (1 - GUARDED.penalty) ** reading.signals.length;
  return {
    multiplier,
    raw: {
      struct: (multiplier * (struct.dag + dc + struct.atr)) / 3,
      pers: pers ? (multiplier * named) / Math.max(1, total) : 0,
      ped: (multiplier * enacted) / SCORED_PHASES.length,
    },
  };
}
