import type { PhaseCoverage, SkillHits } from '../contracts/evaluate-plan.js';
import type { Plan } from '../contracts/plan.js';
import type { Profile } from '../contracts/profile.js';
import type { PlanAnalysis } from '../plan/analyze.js';
import type { ResolvedPalette } from '../plan/palette.js';
import { SCORED_PHASES } from '../rewards/pedagogy/phases.js';
import { pedagogyReward } from '../rewards/pedagogy/reward.js';
import { SignalCoverage } from '../rewards/personalization/reward.js';
import { profileSignals } from '../rewards/personalization/signals.js';

// PersonalPlan A.2.8: phase coverage and positions, from the pedagogy reward's detection (same cues, same
// human-input rule for activation, positions index / (|execution_order| − 1)).
export function phaseCoverage(analysis: PlanAnalysis, palette: ResolvedPalette): PhaseCoverage {
  const ped = pedagogyReward(analysis, palette);
  const covered = SCORED_PHASES.filter((p) => ped.phases[p].detected);
  const firsts = covered.map((p) => ped.phases[p].first_position).filter((x): x is number => x !== null);
  return {
    covered,
    value: ped.value,
    phases: ped.phases,
    merrill_order: firsts.length < 2 ? null : firsts.every((x, i) => i === 0 || firsts[i - 1]! <= x),
  };
}

// PersonalPlan A.2.7: skill-hit ratio = |profile skills/tags mentioned in Text(P)| / |profile skills/tags|,
// with the personalization reward's signals (lexicon aliases resolved) and matcher. Null when the profile
// yields no signal at all.
export function skillHitRatio(plan: Plan, profile: Profile): SkillHits | null {
  const signals = profileSignals(profile);
  const skills = signals.filter((s) => s.sources.includes('tag') || s.sources.includes('skill'));
  const basis = skills.length > 0 ? 'tags_skills' : 'all_signals';
  const counted = skills.length > 0 ? skills : signals;
  if (counted.length === 0) return null;
  const r = new SignalCoverage(counted).score(plan);
  return { value: r.value, basis, hits: r.hits, misses: r.misses };
}
