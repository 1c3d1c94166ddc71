import type { Phase } from '../../contracts/palette.js';
import type { Plan, Step } from '../../contracts/plan.js';
import { toolPhase, type ResolvedPalette } from '../../plan/palette.js';
import { PHASE_CUES, PHASES_VERSION, SCORED_PHASES } from './phases.js';

const ALL_PHASES = Object.keys(PHASE_CUES) as Phase[];
// One scan per step text: a named group per phase tells which phase each cue belongs to.
const CUES = new RegExp(
  ALL_PHASES.map((p) => `(?<${p}>(?<![a-z0-9])(?:${PHASE_CUES[p].join('|')}))`).join('|'),
  'gi',
);

export interface StepPhases {
  step: string;
  phases: Phase[];
  /** Activation cue found on a step without human_input: true, so it does not count. */
  activation_without_human_input?: true;
}

export interface PhaseSummary {
  detected: boolean;
  steps: string[];
  /** Positions in execution_order normalized to [0, 1] (index / (length − 1)). */
  positions: number[];
  first_position: number | null;
}

export interface PedagogyReward {
  value: number;
  phases: Record<Phase, PhaseSummary>;
  steps: StepPhases[];
  version: string;
}

function stepPhases(step: Step, palette: ResolvedPalette): { phases: Set<Phase>; droppedActivation: boolean } {
  const phases = new Set<Phase>();
  const text = step.expected_output ? `${step.instruction}\n${step.expected_output}` : step.instruction;
  for (const m of text.matchAll(CUES)) {
    for (const p of ALL_PHASES) if (m.groups?.[p] !== undefined) phases.add(p);
  }
  const viaTool = toolPhase(palette, step.tool);
  if (viaTool) phases.add(viaTool);
  // Activation probes the learner, so it needs the learner in the loop (PersonalPlan §3.3).
  const droppedActivation = phases.has('activation') && step.human_input !== true;
  if (droppedActivation) phases.delete('activation');
  return { phases, droppedActivation };
}

// PersonalPlan §3.3: R_ped = |phases detected| / 4 over Merrill's Activation, Demonstration, Application, Integration
export function pedagogyReward(plan: Plan, palette: ResolvedPalette): PedagogyReward {
  const order = new Map<string, number>();
  plan.execution_order.forEach((id, i) => {
    if (!order.has(id)) order.set(id, i);
  });
  const span = Math.max(1, plan.execution_order.length - 1);
  const phases = Object.fromEntries(
    ALL_PHASES.map((p) => [p, { detected: false, steps: [], positions: [], first_position: null } as PhaseSummary]),
  ) as Record<Phase, PhaseSummary>;
  const steps: StepPhases[] = [];

  for (const step of plan.steps) {
    const { phases: found, droppedActivation } = stepPhases(step, palette);
    const labelled = ALL_PHASES.filter((p) => found.has(p));
    const entry: StepPhases = { step: step.id, phases: labelled };
    if (droppedActivation) entry.activation_without_human_input = true;
    steps.push(entry);
    const pos = order.get(step.id);
    for (const p of labelled) {
      const summary = phases[p];
      summary.detected = true;
      summary.steps.push(step.id);
      if (pos !== undefined) summary.positions.push(pos / span);
    }
  }
  for (const p of ALL_PHASES) {
    const s = phases[p];
    s.positions.sort((a, b) => a - b);
    s.first_position = s.positions[0] ?? null;
  }
  const detected = SCORED_PHASES.filter((p) => phases[p].detected).length;
  return { value: detected / SCORED_PHASES.length, phases, steps, version: PHASES_VERSION };
}
