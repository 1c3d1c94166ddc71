import type { GuardedCredit } from '../../contracts/gaming.js';
import type { Plan } from '../../contracts/plan.js';
import type { PedagogyReward, PersonalizationReward, StructuralReward } from '../../contracts/results.js';
import { aboutness, type MeaningContext, ownText, planAboutness, type PlanMeaning, stepText } from '../meaning/read.js';
import { SCORED_PHASES } from '../pedagogy/phases.js';
import type { SignalCoverage } from '../personalization/reward.js';
import type { GamingReading } from './signals.js';
import { GUARDED } from './thresholds.js';

/** What the guarded reward reads of one plan besides the paper's components. */
export interface GuardedInput {
  plan: Plan;
  struct: StructuralReward;
  pers: PersonalizationReward | null;
  ped: PedagogyReward;
  reading: GamingReading;
  /** What the plan's steps say about the question, and what they were read against. */
  meaning: PlanMeaning;
  context: MeaningContext;
  coverage: SignalCoverage | null;
  declaredEdges: number;
}

// The guarded reward (docs/rewards.md §10.3): the paper's three axes, each crediting only what steps about this
// question say, scaled by how far the plan as a whole is about it and says something of its own (G, §11h), and
// down once per gaming signal that fired.
export function guardedCredit(g: GuardedInput): GuardedCredit {
  const { plan, struct, pers, ped, reading } = g;
  const meanings = g.meaning.steps;
  const n = plan.steps.length;
  const about = meanings.map(aboutness);
  // §10.3a: R̃_struct = (DAG + D̃C + ATR) / 3 · min(1, Σ_s a_s / k); D̃C = 0 when a plan of two or more steps declares no dependency
  const dc = n >= 2 && g.declaredEdges === 0 ? 0 : struct.dc;
  const content = Math.min(1, about.reduce((a, b) => a + b, 0) / GUARDED.structureSteps);
  // §10.3b: R̃_pers = Σ_c max a_s over the steps that name c in their own words and a crediting sentence (or whose agent or subtask does) / max(1, |C(I_p)|)
  const credited = pers ? namedCredit(g, about) : new Map<string, number>();
  const named = pers ? pers.hits.reduce((sum, h) => sum + (reading.signalsInSentences.has(h.id) ? (credited.get(h.id) ?? 0) : 0), 0) : 0;
  const total = pers ? pers.hits.length + pers.misses.length : 0;
  // §10.3c: R̃_ped = Σ_p max a_s over the steps showing p / 4
  let earned = 0;
  for (const p of SCORED_PHASES) {
    let best = 0;
    for (let i = 0; i < n; i++) if (ped.steps[i]!.phases.includes(p)) best = Math.max(best, about[i]!);
    earned += best;
  }
  // §10.3d: m = G · (1 − π)^|signals fired|, R^g_k = m · R̃_k
  const planAbout = planAboutness(g.meaning);
  const multiplier = planAbout * (1 - GUARDED.penalty) ** reading.signals.length;
  return {
    multiplier,
    about: planAbout,
    plan_specificity: g.meaning.specificity,
    plan_information: g.meaning.information,
    plan_coverage: g.meaning.coverage,
    raw: {
      struct: (multiplier * content * (struct.dag + dc + struct.atr)) / 3,
      pers: pers ? (multiplier * named) / Math.max(1, total) : 0,
      ped: (multiplier * earned) / SCORED_PHASES.length,
    },
    steps: meanings.map((m, i) => ({ step: plan.steps[i]!.id, specificity: m.specificity, about: about[i]!, invented: m.invented })),
  };
}

/** For each profile signal, the largest credit of a step that names it (in its text, or its agent's or subtask's). */
function namedCredit(g: GuardedInput, personalCredit: readonly number[]): Map<string, number> {
  const credit = new Map<string, number>();
  if (g.coverage === null) return credit;
  const coverage = g.coverage;
  const agents = new Map(g.plan.agents.map((a) => [a.id, `${a.role}\n${a.goal ?? ''}\n${a.backstory ?? ''}`]));
  const subtasks = new Map(g.plan.subtasks.map((s) => [s.id, `${s.name}\n${s.objective ?? ''}`]));
  g.plan.steps.forEach((s, i) => {
    if (personalCredit[i]! === 0) return;
    // The step's own words: a signal named only in text pasted from the profile is not the plan's naming it.
    const text = `${ownText(stepText(s), g.context)}\n${agents.get(s.agent) ?? ''}\n${subtasks.get(s.subtask) ?? ''}`.toLowerCase();
    for (const span of coverage.phraseSpans(text)) {
      const id = coverage.signalOf(span.phrase)?.id;
      if (id !== undefined) credit.set(id, Math.max(credit.get(id) ?? 0, personalCredit[i]!));
    }
  });
  return credit;
}
