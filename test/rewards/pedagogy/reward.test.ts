import t from 'tap';
import type { Plan } from '../../../src/contracts/plan.js';
import { analyzePlan } from '../../../src/plan/analyze.js';
import { DEFAULT_RESOLVED, resolvePalette, type ResolvedPalette } from '../../../src/plan/palette.js';
import fc from 'fast-check';
import { cueSpans, pedagogyReward as rewardOf } from '../../../src/rewards/pedagogy/reward.js';
import { PHASE_CUES } from '../../../src/rewards/pedagogy/phases.js';

const pedagogyReward = (plan: Plan, palette: ResolvedPalette) => rewardOf(analyzePlan(plan, palette), palette);
import { basePlan, withStep } from '../../support/plans.js';

t.test('a plan with all four Merrill phases scores 1, with per-step labels and positions', async (t) => {
  const r = pedagogyReward(basePlan(), DEFAULT_RESOLVED);
  t.equal(r.value, 1);
  t.same(r.steps, [
    { step: 'a', phases: ['activation'] },
    { step: 'b', phases: ['demonstration'] },
    { step: 'c', phases: ['application'] },
    { step: 'd', phases: ['integration'] },
  ]);
  t.same(r.phases.activation, { detected: true, steps: ['a'], positions: [0], first_position: 0 });
  t.same(r.phases.integration.positions, [1]);
  t.same(r.phases.demonstration.first_position, 1 / 3);
  t.same(r.phases.feedback, { detected: false, steps: [], positions: [], first_position: null });
  t.equal(r.version, 'merrill-phases@1');
});

t.test('activation counts only on a step with human_input: true', async (t) => {
  const r = pedagogyReward(withStep(basePlan(), 'a', { human_input: false }), DEFAULT_RESOLVED);
  t.equal(r.value, 3 / 4);
  t.same(r.steps[0], { step: 'a', phases: [], activation_without_human_input: true });
  t.equal(r.phases.activation.detected, false);
});

t.test('paraphrases are accepted', async (t) => {
  const cases: Array<[string, string]> = [
    ['Gauge the student’s familiarity with recursion.', 'activation'],
    ['Walk the learner through a worked example of recursion.', 'demonstration'],
    ['Illustrating the call stack with a diagram.', 'demonstration'],
    ['Have the learner practise writing a recursive function.', 'application'],
    ['Evaluating whether the solution handles the base case.', 'integration'],
    ['Give corrective feedback on style.', 'feedback'],
    ['Recap the key takeaways.', 'consolidate'],
  ];
  for (const [instruction, phase] of cases) {
    const p = basePlan();
    p.steps = [{ id: 'x', subtask: 'learn', agent: 'tutor', instruction, depends_on: [], human_input: true }];
    p.execution_order = ['x'];
    t.same(pedagogyReward(p, DEFAULT_RESOLVED).steps[0]!.phases, [phase], instruction);
  }
});

t.test('words that merely contain a cue do not count', async (t) => {
  const p = basePlan();
  p.steps = [{ id: 'x', subtask: 'learn', agent: 'tutor', instruction: 'Represent the unchecked, untried data.', depends_on: [], human_input: true }];
  p.execution_order = ['x'];
  const r = pedagogyReward(p, DEFAULT_RESOLVED);
  t.same(r.steps[0]!.phases, []);
  t.equal(r.value, 0);
});

t.test('a retrieval tool marks demonstration; a request palette can say which phase its tools serve', async (t) => {
  const p = withStep(basePlan(), 'b', { instruction: 'Gather material.', tool: 'CodeDocsSearchTool' });
  t.same(pedagogyReward(p, DEFAULT_RESOLVED).steps[1]!.phases, ['demonstration']);
  const palette = resolvePalette([{ name: 'CodeDocsSearchTool' }, { name: 'Grader', phase: 'integration' }]);
  t.same(pedagogyReward(withStep(basePlan(), 'b', { instruction: 'Gather material.', tool: 'CodeDocsSearchTool' }), palette).steps[1]!.phases, []);
  t.same(pedagogyReward(withStep(basePlan(), 'b', { instruction: 'Run it.', tool: 'Grader' }), palette).steps[1]!.phases, ['integration']);
});

t.test('expected_output counts as step text; steps outside execution_order have no position', async (t) => {
  const p = withStep(basePlan(), 'd', { instruction: 'Wrap up.', expected_output: 'A summary of the lesson.' });
  p.execution_order = ['a', 'b', 'c'];
  const r = pedagogyReward(p, DEFAULT_RESOLVED);
  t.same(r.steps[3]!.phases, ['consolidate']);
  t.same(r.phases.consolidate, { detected: true, steps: ['d'], positions: [], first_position: null });
  t.equal(r.value, 3 / 4);
});

t.test('cue spans of lowercased text are those a case-insensitive scan finds', async (t) => {
  // The spec, built here: the cues of each phase, matched ignoring case.
  const phases = Object.keys(PHASE_CUES) as (keyof typeof PHASE_CUES)[];
  const folded = new RegExp(`\\b(?:${phases.map((p) => `(${PHASE_CUES[p].join('|')})`).join('|')})`, 'gi');
  const expected = (lowered: string) =>
    [...lowered.matchAll(folded)].map((m) => ({
      phase: phases[m.findIndex((x, i) => i > 0 && x !== undefined) - 1],
      start: m.index,
      end: m.index + m[0].length,
    }));
  // Cue words, their neighbours in other cases, and letters that fold onto ASCII ones only outside the i
  // flag's reach (long s, dotless i, Kelvin sign, dotted capital I).
  const pieces = [
    'Prior knowledge',
    'SHOW',
    'showcase',
    'ExPlAiN',
    'practice',
    'reflect',
    'ſhow',
    'ıllustrate',
    '\u212Anow',
    'İllustrat',
    'already \u212Anow',
    'quiz',
    'pre-test',
    ' ',
    '. ',
    '-',
    'x',
    'ß',
    'é',
  ];
  const text = fc.array(fc.constantFrom(...pieces), { maxLength: 12 }).map((p) => p.join(''));
  fc.assert(
    fc.property(text, (s) => {
      const lowered = s.toLowerCase();
      t.same(cueSpans(lowered), expected(lowered), lowered);
    }),
    { numRuns: 500 },
  );
  t.ok(cueSpans('already \u212Anow'.toLowerCase()).length > 0, 'the Kelvin sign lowercases to k');
});
