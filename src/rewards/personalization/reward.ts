import type { Plan } from '../../contracts/plan.js';
import { LEXICON_VERSION } from './lexicon.js';
import { PhraseMatcher } from './matcher.js';
import type { PersonalizationReward, ProfileSignal, SignalHit } from '../../contracts/results.js';

/** Text(P): the agent, subtask and step text a learner-facing plan is judged on, lowercased. */
function planText(plan: Plan): string {
  let text = '';
  for (const a of plan.agents) text += `${a.role}\n${a.goal ?? ''}\n${a.backstory ?? ''}\n`;
  for (const s of plan.subtasks) text += `${s.name}\n${s.objective ?? ''}\n`;
  for (const s of plan.steps) text += `${s.instruction}\n${s.expected_output ?? ''}\n`;
  return text.toLowerCase();
}

/** The signals of one rollout group compiled once and matched against each of its plans. */
export class SignalCoverage {
  private readonly matcher: PhraseMatcher;

  constructor(readonly signals: readonly ProfileSignal[]) {
    this.matcher = new PhraseMatcher(signals.flatMap((s) => s.phrases));
  }

  /** The signals' phrases found in `lowered` text, with their places (for the gaming signals). */
  phraseSpans(lowered: string): { phrase: string; start: number; end: number }[] {
    return this.matcher.spans(lowered);
  }

  /** The signal a normalized phrase belongs to. */
  signalOf(phrase: string): ProfileSignal | undefined {
    return this.signals.find((s) => s.phrases.includes(phrase));
  }

  // PersonalPlan §3.3: R_pers = |{c ∈ C(I_p) : c present in Text(P)}| / max(1, |C(I_p)|)
  score(plan: Plan): PersonalizationReward {
    const found = this.matcher.scan(planText(plan));
    const hits: SignalHit[] = [];
    const misses: PersonalizationReward['misses'] = [];
    for (const s of this.signals) {
      const matched = s.phrases.filter((p) => found.has(p));
      if (matched.length > 0) hits.push({ id: s.id, label: s.label, sources: s.sources, matched });
      else misses.push({ id: s.id, label: s.label, sources: s.sources });
    }
    return { value: hits.length / Math.max(1, this.signals.length), hits, misses, lexicon: LEXICON_VERSION };
  }
}
