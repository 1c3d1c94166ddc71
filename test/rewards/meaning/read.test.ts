// The meaning reading (docs/rewards.md §11): each measure against its definition written out plainly here, on
// the corpus's plans and on text built to show one thing.
import t from 'tap';
import type { Plan } from '../../../src/contracts/plan.js';
import { averagePlan } from '../../../src/rewards/meaning/background.js';
import { aboutness, meaningContext, planAboutness, planVector, readPlanMeaning } from '../../../src/rewards/meaning/read.js';
import { MEANING } from '../../../src/rewards/meaning/thresholds.js';
import { wordTable } from '../../../src/rewards/meaning/word-vectors.js';
import { dot, meanOf, wordsOf } from '../../../src/rewards/meaning/words.js';
import { isStopword } from '../../../src/rewards/gaming/text.js';
import { adversaryFamilies } from '../../../src/redteam/families.js';
import { mulberry32 } from '../../../src/common/rng.js';
import { corpusGroups } from '../../support/real-plans.js';

const table = wordTable();
const oneAgent = (instructions: string[]): Plan => ({
  agents: [{ id: 'a', role: 'tutor', tools: [] }],
  subtasks: [{ id: 's', name: 'Plan' }],
  steps: instructions.map((instruction, i) => ({ id: `k${i}`, subtask: 's', agent: 'a', instruction, tool: null, depends_on: [], human_input: false })),
  execution_order: instructions.map((_, i) => `k${i}`),
});
const QUERY = 'How do I sort a list of dictionaries by a key in Python?';
const ctx = meaningContext(QUERY, { tags: ['python', 'pandas'] });

// The definition written out plainly (§11b, §11c, §11f): every content word of every step, pasted runs,
// numbers, grammar, generic words, cues, profile items and words without a row left out, their weighted mean.
function plainSpecificity(plan: Plan, c: ReturnType<typeof meaningContext>): number {
  const rows: number[] = [];
  for (const step of plan.steps) {
    const words = wordsOf(step.expected_output ? `${step.instruction}\n${step.expected_output}` : step.instruction);
    const plain = words.map((w) => w.word);
    const pasted = new Set<number>();
    for (let i = 0; i + MEANING.copiedRun <= words.length; i++) if (c.pastedRuns.has(plain, i)) for (let j = i; j < i + MEANING.copiedRun; j++) pasted.add(j);
    words.forEach(({ word, cue }, i) => {
      const r = table.row(word);
      if (!pasted.has(i) && !cue && !isStopword(word) && !/^[0-9]/.test(word) && r >= 0 && !c.profileRows.has(r)) rows.push(r);
    });
  }
  const v = meanOf(rows, table);
  return v === null || c.query === null ? 0 : dot(v, c.query) - dot(averagePlan(), c.query);
}

t.test("the plan's specificity is its plain definition, on honest plans and on plans written to game it", async (t) => {
  const evaluation = corpusGroups('evaluation');
  for (const [gi, g] of evaluation.slice(0, 20).entries()) {
    const c = meaningContext(g.query, g.profile);
    const plans = [
      ...g.plans.map((p) => p.plan),
      ...adversaryFamilies.fluent_hollow(g, evaluation, mulberry32(gi)).slice(0, 3),
      ...adversaryFamilies.off_topic_mixed(g, evaluation, mulberry32(gi)).slice(0, 3),
    ];
    for (const plan of plans) {
      const fast = readPlanMeaning(plan, c).specificity;
      t.ok(Math.abs(fast - plainSpecificity(plan, c)) < 1e-5, `${g.id}: ${fast}`);
      t.ok(Math.abs(fast - (dot(planVector(plan, c)!, c.query!) - c.generic)) < 1e-6, `${g.id}: the plan vector`);
    }
  }
});

t.test('a step about the question is more specific than a generic one, and than one about something else', async (t) => {
  const m = readPlanMeaning(
    oneAgent([
      'Show how sorted() takes a key function, here a lambda returning the dictionary value to order the records by.',
      'Give the learner a clear and friendly overview of the main ideas, then check their understanding.',
      'Knead the bread dough for ten minutes until it is smooth and elastic.',
    ]),
    ctx,
  );
  const [about, generic, bread] = m.steps.map((s) => s.specificity);
  t.ok(about! > generic! && about! > bread!, `${about} against ${generic} and ${bread}`);
});

t.test("invented words earn nothing and are listed; the client's own words and short names never are", async (t) => {
  const c = meaningContext('How does my frobnitz cache expire?', { tags: ['python'] });
  const [step] = readPlanMeaning(oneAgent(['Explain the quux wibble of the frobnitz cache with a bauntwerkquurk and an xyz example.']), c).steps;
  t.same(step!.invented, ['quux', 'wibble', 'bauntwerkquurk'], "frobnitz is the query's; xyz is too short to call");
  const real = readPlanMeaning(oneAgent(['Explain the wibble.']), c);
  t.equal(real.steps[0]!.words, readPlanMeaning(oneAgent(['Explain the.']), c).steps[0]!.words, 'an invented word is no content word');
});

t.test("a calculation takes its plan's specificity (§11b); another step too short to read earns nothing (§11d)", async (t) => {
  const m = readPlanMeaning(
    oneAgent(['Sort the records by the age key with sorted and a lambda, then print them.', 'Recap the idea.', '12 / 4 = 3; 3 + 5 = 8.']),
    ctx,
  );
  t.ok(m.steps[0]!.words >= MEANING.readableWords);
  t.equal(aboutness(m.steps[1]!), 0, 'recap: too short to say anything about the question');
  t.equal(m.steps[2]!.specificity, m.specificity, 'a calculation is read as part of its plan');
});

t.test('information counts each new content word once, by its weight, and each number the query does not hold (§11g)', async (t) => {
  const c = meaningContext('A box holds 12 eggs; how many are in 4 boxes?', undefined);
  const base = readPlanMeaning(oneAgent(['Multiply the eggs per box by the boxes.']), c).information;
  const withResult = readPlanMeaning(oneAgent(['Multiply the eggs per box by the boxes: 12 × 4 = 48.']), c).information;
  t.equal(withResult, base + 1, "48 is new, 12 and 4 are the query's");
  const twice = readPlanMeaning(oneAgent(['Multiply the eggs per box by the boxes.', 'Multiply the eggs per box by the boxes.']), c).information;
  t.equal(twice, base, 'a word said twice says it once');
});

t.test("text pasted from the query is not the step's own (§11c)", async (t) => {
  const own = readPlanMeaning(oneAgent(['Use sorted with a key.']), ctx);
  const pasted = readPlanMeaning(oneAgent([`Use sorted with a key. ${QUERY}`]), ctx);
  t.equal(pasted.steps[0]!.words, own.steps[0]!.words, 'a pasted run of the query adds no content word');
});

t.test('with a reference, coverage is the weighted share of its new content the plan says, and G is that share (§11h, §11j)', async (t) => {
  const g = corpusGroups('evaluation')[0]!;
  const c = meaningContext(g.query, g.profile, g.reference);
  const honest = readPlanMeaning(g.plans[0]!.plan, c);
  t.ok(honest.coverage !== null && honest.coverage > 0.9, `an honest plan quoting its reference covers it: ${honest.coverage}`);
  t.equal(
    planAboutness(honest),
    Math.min(1, Math.max(0, (honest.coverage! - MEANING.referenceCoverage.from) / (MEANING.referenceCoverage.to - MEANING.referenceCoverage.from))),
  );
  const half = { ...g.plans[0]!.plan, steps: g.plans[0]!.plan.steps.slice(0, 1) };
  t.ok(readPlanMeaning(half, c).coverage! < honest.coverage!, 'a plan of its first step only covers less');
  t.equal(readPlanMeaning(g.plans[0]!.plan, meaningContext(g.query, g.profile)).coverage, null, 'null without a reference');
});

t.test('aboutness and G are ramps of their measures, 0 below, 1 above', async (t) => {
  const step = (specificity: number) => ({ words: 5, numbers: 0, invented: [], specificity });
  t.equal(aboutness(step(MEANING.specificity.from - 1)), 0);
  t.equal(aboutness(step(MEANING.specificity.to + 1)), 1);
  t.ok(Math.abs(aboutness(step((MEANING.specificity.from + MEANING.specificity.to) / 2)) - 0.5) < 1e-9);
  const plan = (specificity: number, information: number) => ({ steps: [], specificity, information, coverage: null });
  t.equal(planAboutness(plan(MEANING.planSpecificity.to, MEANING.planInformation.to)), 1);
  t.equal(planAboutness(plan(MEANING.planSpecificity.to, MEANING.planInformation.from)), 0);
  t.equal(planAboutness(plan(MEANING.planSpecificity.from, MEANING.planInformation.to)), 0);
});
