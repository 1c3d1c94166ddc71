import type { Phase } from '../../contracts/palette.js';
import type { Step } from '../../contracts/plan.js';
import type { PedagogyReward, PhaseSummary } from '../../contracts/results.js';
import type { PlanAnalysis } from '../../plan/analyze.js';
import { toolPhase, type ResolvedPalette } from '../../plan/palette.js';
import { PHASE_CUES, PHASES_VERSION, SCORED_PHASES } from './phases.js';

const ALL_PHASES = Object.keys(PHASE_CUES) as Phase[];
/** Each phase's bit in a set of phases held as a number. */
export const PHASE_BIT = Object.fromEntries(ALL_PHASES.map((p, i) => [p, 1 << i])) as Record<Phase, number>;
// One scan per step text: capture group i + 1 holds a cue of ALL_PHASES[i].
const CUE_SOURCE = `\\b(?:${ALL_PHASES.map((p) => `(${PHASE_CUES[p].join('|')})`).join('|')})`;
const CUES = new RegExp(CUE_SOURCE, 'gi');
// Lowercased text matches the same without case folding, which slows the scan: the cues are lowercase
// ASCII, and the i flag (without u) never folds a character outside ASCII onto one inside it.
const LOWERED_CUES = new RegExp(CUE_SOURCE, 'g');

type StepPhases = PedagogyReward['steps'][number];

/** The index in ALL_PHASES of the phase whose cue a match of CUES is. */
function phaseOf(m: RegExpExecArray): number {
  let i = 0;
  while (m[i + 1] === undefined) i++;
  return i;
}

function scan(text: string, bits: number): number {
  CUES.lastIndex = 0;
  for (let m = CUES.exec(text); m !== null; m = CUES.exec(text)) bits |= 1 << phaseOf(m);
  return bits;
}

/** Where phase cues lie in `lowered` (text lowercased), and the phase of each. */
export function cueSpans(lowered: string): { phase: Phase; start: number; end: number }[] {
  const out: { phase: Phase; start: number; end: number }[] = [];
  LOWERED_CUES.lastIndex = 0;
  for (let m = LOWERED_CUES.exec(lowered); m !== null; m = LOWERED_CUES.exec(lowered)) {
    out.push({ phase: ALL_PHASES[phaseOf(m)]!, start: m.index, end: m.index + m[0].length });
  }
  return out;
}

function isAscending(xs: readonly number[]): boolean {
  for (let i = 1; i < xs.length; i++) if (xs[i - 1]! > xs[i]!) return false;
  return true;
}

/** The phases the cues of a step's instruction and expected output name (PHASE_BIT). */
function scannedCues(step: Step): number {
  const bits = scan(step.instruction, 0);
  return step.expected_output ? scan(step.expected_output, bits) : bits;
}

/** Phases a step exhibits, its cues' and its tool's, as a bit set over ALL_PHASES, before the human-input rule. */
function stepPhases(step: Step, cues: number, palette: ResolvedPalette): number {
  const viaTool = toolPhase(palette, step.tool);
  return viaTool ? cues | PHASE_BIT[viaTool] : cues;
}

/**
 * `stepCues`, when given, holds the cues of each step (in `plan.steps` order) as a reading of the same texts
 * already found them, sentence by sentence: a cue never spans a sentence break, so those are the same phases.
 */
// PersonalPlan §3.3: R_ped = |phases detected| / 4 over Merrill's Activation, Demonstration, Application, Integration
export function pedagogyReward(a: PlanAnalysis, palette: ResolvedPalette, stepCues?: readonly number[]): PedagogyReward {
  const { plan, rank } = a;
  const ordered = plan.execution_order.length;
  const span = Math.max(1, ordered - 1);
  const phases = {} as Record<Phase, PhaseSummary>;
  for (const p of ALL_PHASES) phases[p] = { detected: false, steps: [], positions: [], first_position: null };
  const steps: StepPhases[] = [];

  for (let k = 0; k < plan.steps.length; k++) {
    const step = plan.steps[k]!;
    let bits = stepPhases(step, stepCues?.[k] ?? scannedCues(step), palette);
    const entry: StepPhases = { step: step.id, phases: [] };
    // Activation probes the learner, so it needs the learner in the loop (PersonalPlan §3.3).
    if (bits & PHASE_BIT.activation && step.human_input !== true) {
      bits &= ~PHASE_BIT.activation;
      entry.activation_without_human_input = true;
    }
    const pos = rank.get(step.id);
    for (let i = 0; i < ALL_PHASES.length; i++) {
      if (!(bits & (1 << i))) continue;
      const p = ALL_PHASES[i]!;
      entry.phases.push(p);
      const summary = phases[p];
      summary.detected = true;
      summary.steps.push(step.id);
      if (pos !== undefined && pos < ordered) summary.positions.push(pos / span);
    }
    steps.push(entry);
  }
  for (const p of ALL_PHASES) {
    const s = phases[p];
    // Positions come in declaration order, mostly ascending already; sorting copies even then.
    if (!isAscending(s.positions)) s.positions.sort((a, b) => a - b);
    s.first_position = s.positions[0] ?? null;
  }
  const detected = SCORED_PHASES.filter((p) => phases[p].detected).length;
  return { value: detected / SCORED_PHASES.length, phases, steps, version: PHASES_VERSION };
}
