// The duplicate-steps measure against a reference that reads each instruction whole with the word regex:
// the signals take an instruction's word set from its sentences' readings, which must be the same set.
import t from 'tap';
import fc from 'fast-check';
import { jaccard } from '../../../src/common/jaccard.js';
import { mulberry32 } from '../../../src/common/rng.js';
import type { Plan } from '../../../src/contracts/plan.js';
import { analyzePlan } from '../../../src/plan/analyze.js';
import { resolvePalette } from '../../../src/plan/palette.js';
import { groupContext } from '../../../src/scoring/evaluate-plan.js';
import { pedagogyReward } from '../../../src/rewards/pedagogy/reward.js';
import { readGaming, readSteps, stepCues } from '../../../src/rewards/gaming/signals.js';
import { GAMING_THRESHOLDS, READING } from '../../../src/rewards/gaming/thresholds.js';
import { GAMING_SIGNAL_CODES } from '../../../src/contracts/gaming.js';

const WORD = /[a-z0-9][a-z0-9+#]*(?:'[a-z]+)?/g;
const wordsOf = (text: string) => new Set(text.toLowerCase().match(WORD) ?? []);

function referenceDuplicates(instructions: readonly string[]): number {
  const sets = instructions.map(wordsOf);
  let repeats = 0;
  for (let j = 1; j < sets.length; j++) {
    const big = (s: Set<string>) => s.size >= READING.duplicateMinWords;
    if (big(sets[j]!) && sets.slice(0, j).some((s) => big(s) && jaccard(s, sets[j]!) >= READING.duplicateJaccard)) repeats++;
  }
  return sets.length === 0 ? 0 : repeats / sets.length;
}

const plan = (instructions: readonly string[]): Plan => ({
  agents: [{ id: 'a', role: 'tutor', tools: [] }],
  subtasks: [{ id: 's', name: 'Plan' }],
  steps: instructions.map((instruction, i) => ({ id: `k${i}`, subtask: 's', agent: 'a', instruction, tool: null, depends_on: [], human_input: false })),
  execution_order: instructions.map((_, i) => `k${i}`),
});

/** The gaming reading of a plan for a pandas-joins query and a learner tagged with `tags`. */
function readingOf(p: Plan, tags: string[] = ['python']) {
  const palette = resolvePalette(undefined);
  const ctx = groupContext('How do pandas joins work?', { tags });
  const a = analyzePlan(p, palette);
  return readGaming(a, palette, ctx.coverage!.score(a.plan), pedagogyReward(a, palette), ctx);
}

const measured = (instructions: readonly string[]): number => readingOf(plan(instructions)).measures.duplicate_steps;

t.test('a step repeats an earlier one whatever its sentences, not when one sentence differs', async (t) => {
  const first = 'Write a pandas join of two tables. Then explain the output to the learner';
  t.equal(measured([first, 'write a pandas join of two tables; then explain the output to the learner!']), 0.5, 'split differently, same words');
  t.equal(measured([first, 'Write a pandas join of two tables. Then draw three sketches for the class']), 0, 'the second sentence differs');
  t.equal(measured([first, 'Then explain the output to the learner.\nWrite a pandas join of two tables.']), 0.5, 'sentences in another order');
});

t.test('random instructions: the same measure as reading each instruction whole', async (t) => {
  const rand = mulberry32(11);
  const VOCAB = ['pandas', 'join', 'Tables', 'explain', 'the', 'output', "learner's", 'c++', 'merge', 'keys'];
  const BREAKS = ['. ', '; ', '.\n', '! ', ' ', '., ', '? ', '\n\n', ': '];
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  // An instruction's words, cut into sentences at random places and joined with random breaks.
  const written = (ws: readonly string[]) => ws.map((w, i) => (i === 0 ? w : `${rand() < 0.3 ? pick(BREAKS) : ' '}${w}`)).join('');
  const fresh = () => Array.from({ length: 1 + Math.floor(rand() * 9) }, () => pick(VOCAB));
  // Half the steps take an earlier step's words again, some with one word changed.
  const again = (earlier: readonly string[][]) => {
    const ws = [...pick(earlier)];
    if (rand() < 0.4) ws[Math.floor(rand() * ws.length)] = pick(VOCAB);
    return ws;
  };
  let differ = 0;
  let nonzero = 0;
  for (let k = 0; k < 400; k++) {
    const stepWords: string[][] = [];
    for (let i = 0, n = 2 + Math.floor(rand() * 5); i < n; i++) stepWords.push(i > 0 && rand() < 0.5 ? again(stepWords) : fresh());
    const steps = stepWords.map(written);
    const expected = referenceDuplicates(steps);
    if (expected > 0) nonzero++;
    if (measured(steps) !== expected) differ++;
  }
  t.equal(differ, 0, 'plans measured differently');
  t.ok(nonzero > 50, `plans with repeats among the 400: ${nonzero}`);
});

t.test('the signals that fire are those whose measure is over its threshold, in GAMING_SIGNAL_CODES order', async (t) => {
  const plans = [
    // One agent, no dependencies, repeated and off-topic steps, keywords with no sentence around them.
    plan(['python sql python sql', 'Paint a watercolour of the sea.', 'Paint a watercolour of the sea!', 'Explain, show, practise, reflect.']),
    plan(['Write a pandas join of two tables and explain the output to the learner.', 'Ask what the learner already knows about SQL joins.']),
  ];
  const fired: string[] = [];
  for (const p of plans) {
    const reading = readingOf(p, ['python', 'sql']);
    const over = GAMING_SIGNAL_CODES.filter((c) => reading.measures[c] > GAMING_THRESHOLDS[c]);
    t.same(
      reading.signals.map((s) => s.code),
      over,
    );
    for (const s of reading.signals) t.same([s.value, s.threshold], [reading.measures[s.code], GAMING_THRESHOLDS[s.code]], s.code);
    fired.push(...over);
  }
  t.ok(new Set(fired).size >= 3, `several kinds of signal fired: ${fired.join(', ')}`);
});

t.test('pedagogy credits the same phases from the cues the reading found sentence by sentence as from its own scan', async (t) => {
  const palette = resolvePalette(undefined);
  const ctx = groupContext('How do pandas joins work?', { tags: ['python'] });
  // Cue words in several cases, cues cut by sentence breaks, and letters that lowercase to more than one.
  const pieces = ['Prior', 'knowledge', 'prior knowledge', 'SHOW', 'practice', 'Reflect', 'explain', 'quiz', 'ask the learner', 'İllustrat', 'pre', '-test'];
  const breaks = [' ', '. ', '; ', '.\n', '\n', '! ', '? ', '., ', ': ', ', ', '.'];
  const text = fc.array(fc.tuple(fc.constantFrom(...pieces), fc.constantFrom(...breaks)), { maxLength: 10 }).map((ps) => ps.flat().join(''));
  const step = fc.record({ instruction: text, expected_output: fc.option(text, { nil: undefined }), human_input: fc.boolean() });
  fc.assert(
    fc.property(fc.array(step, { minLength: 1, maxLength: 5 }), (steps) => {
      const p = plan(steps.map((s) => s.instruction));
      p.steps.forEach((s, i) => {
        s.expected_output = steps[i]!.expected_output;
        s.human_input = steps[i]!.human_input;
      });
      const a = analyzePlan(p, palette);
      t.same(pedagogyReward(a, palette, stepCues(readSteps(p, ctx))), pedagogyReward(a, palette), JSON.stringify(steps));
    }),
    { numRuns: 300 },
  );
});
t.test('a phase credited to a step whose id repeats is enacted or not by the first step of that id', async (t) => {
  const asks = 'Ask the learner what they already know about pandas joins and merging tables on shared keys?';
  const twoSteps = (secondId: string): Plan => {
    const p = plan([asks, asks]);
    p.steps[1]!.id = secondId;
    p.execution_order = ['k0', secondId];
    // Only the second step has the learner in the loop, so only it is credited with activation.
    p.steps[1]!.human_input = true;
    return p;
  };
  t.ok(readingOf(twoSteps('k1')).enactedPhases.has('activation'), 'its own id: the step that asks the learner enacts activation');
  const repeated = readingOf(twoSteps('k0'));
  t.notOk(repeated.enactedPhases.has('activation'), 'the id of the first step: judged on the first, which has no learner in the loop');
  t.ok(repeated.measures.cue_only_phase >= 1);
});

t.test('a context read before the table of known words starts again reads its repeats after it the same', async (t) => {
  const palette = resolvePalette(undefined);
  const ctx = groupContext('How do pandas joins work?', { tags: ['python'] });
  const read = (p: Plan) => {
    const a = analyzePlan(p, palette);
    return readGaming(a, palette, ctx.coverage!.score(a.plan), pedagogyReward(a, palette), ctx).measures.duplicate_steps;
  };
  const first = 'Write a pandas join of two tables and explain the output to the learner';
  const other = 'Draw three sketches of merge keys for the class on the whiteboard';
  t.equal(read(plan([first, other])), 0, 'no repeat before');
  // Read a second time, in another group: its text's reading is kept (RepeatCache).
  t.equal(readingOf(plan([first, other])).measures.duplicate_steps, 0);
  // More new words than the table keeps: the next plan's reading starts it again.
  const flood = Array.from({ length: 60 }, (_, s) => Array.from({ length: 1000 }, (_, i) => `zq${(s * 1000 + i).toString(36)}`).join(' '));
  read(plan(flood));
  // The same words in another order: a text the context has not read, beside one it has.
  const reordered = 'Explain the output to the learner and write a pandas join of two tables';
  t.equal(read(plan([first, reordered])), referenceDuplicates([first, reordered]), 'the repeat is found after it');
  t.equal(read(plan([first, reordered])), 0.5);
});

t.test('plans read in turns in two groups read as each group alone reads them', async (t) => {
  const palette = resolvePalette(undefined);
  // On topic by the query's words alone, in one group or the other.
  const groups = [
    { query: 'How do I bake sourdough bread at home?', profile: { tags: ['baking', 'beginner'] } },
    { query: 'How do I tune a classical guitar by ear?', profile: { tags: ['guitar', 'beginner'] } },
  ];
  const p = plan([
    'Ask the learner what they already know about sourdough starter and how bread rises at home',
    'Show how a sourdough starter is fed and folded before the bread is baked',
    'Have the learner tune each guitar string by ear against the one below it',
  ]);
  const reading = (ctx: ReturnType<typeof groupContext>) => {
    const a = analyzePlan(p, palette);
    const r = readGaming(a, palette, ctx.coverage!.score(a.plan), pedagogyReward(a, palette), ctx);
    return JSON.stringify([r.measures, [...r.signalsInSentences], [...r.enactedPhases]]);
  };
  const alone = groups.map((g) => reading(groupContext(g.query, g.profile)));
  t.not(alone[0], alone[1], 'the two groups read the plan differently');
  const shared = groups.map((g) => groupContext(g.query, g.profile));
  for (let k = 0; k < 4; k++) for (const i of [0, 1]) t.equal(reading(shared[i]!), alone[i], `group ${i}, turn ${k}`);
});

t.test('activation is enacted by a step with human input that asks the learner, not by its cue alone', async (t) => {
  const enacted = (instruction: string, humanInput: boolean) => {
    const p = plan([instruction, 'Write a pandas join of two tables on their keys and explain the output to the learner']);
    p.steps[0]!.human_input = humanInput;
    return readingOf(p, ['python', 'pandas']).enactedPhases.has('activation');
  };
  const telling = "Assess the learner's prior knowledge of pandas joins from the merge keys of their last project";
  const asking = 'Ask the learner what they already know about pandas joins and which merge keys they have used';
  t.notOk(enacted(telling, true), 'a cue that asks nothing');
  t.ok(enacted(asking, true), 'a question to the learner');
  t.notOk(enacted(asking, false), 'the same question on a step without human input');
});
