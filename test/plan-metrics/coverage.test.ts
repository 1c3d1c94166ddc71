import t from 'tap';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE } from '../../src/contracts/examples.js';
import { analyzePlan } from '../../src/plan/analyze.js';
import { DEFAULT_RESOLVED } from '../../src/plan/palette.js';
import { parsePlan, DEFAULT_PLAN_LIMITS } from '../../src/plan/parse.js';
import { phaseCoverage, skillHitRatio } from '../../src/plan-metrics/coverage.js';

// The example plan as a planner would emit it: fenced JSON text, through the project's parser.
const parsed = parsePlan(`Plan:\n\`\`\`json\n${JSON.stringify(EXAMPLE_PLAN)}\n\`\`\``, DEFAULT_PLAN_LIMITS);
if (!parsed.ok) throw new Error('example plan does not parse');
const plan = parsed.plan;

t.test('phase coverage and positions of the example plan', async (t) => {
  const c = phaseCoverage(analyzePlan(plan, DEFAULT_RESOLVED), DEFAULT_RESOLVED);
  t.same(c.covered, ['activation', 'demonstration', 'application', 'integration']);
  t.equal(c.value, 1);
  t.equal(c.merrill_order, true);
  t.same(c.phases.activation.steps, ['st1']);
  t.equal(c.phases.activation.first_position, 0);
  t.equal(c.phases.demonstration.first_position, 1 / 9, 'st2 retrieves documentation');
  t.equal(c.phases.consolidate.first_position, 1, 'st10 summarizes, last');
  t.ok(c.phases.feedback.detected);
  t.ok(c.phases.integration.first_position! > c.phases.application.first_position!);
});

t.test('phase order: integration before application is reported', async (t) => {
  const swapped = { ...plan, execution_order: ['st1', 'st2', 'st3', 'st4', 'st8', 'st5', 'st6', 'st7', 'st9', 'st10'] };
  const c = phaseCoverage(analyzePlan(swapped, DEFAULT_RESOLVED), DEFAULT_RESOLVED);
  t.equal(c.merrill_order, false);
  const bare = { ...plan, steps: plan.steps.map((s) => ({ ...s, instruction: 'Do it.', tool: null })) };
  t.match(phaseCoverage(analyzePlan(bare, DEFAULT_RESOLVED), DEFAULT_RESOLVED), { covered: [], value: 0, merrill_order: null });
});

t.test('skill-hit ratio of the example plan: python, pandas and SQL hit, Excel missed', async (t) => {
  const s = skillHitRatio(plan, EXAMPLE_PROFILE)!;
  t.equal(s.basis, 'tags_skills');
  t.equal(s.value, 3 / 4);
  t.same(
    s.hits.map((h) => h.id),
    ['python', 'pandas', 'sql'],
  );
  t.same(
    s.misses.map((h) => h.id),
    ['excel'],
  );
  t.ok(s.hits.find((h) => h.id === 'pandas')!.matched.includes('dataframe'), 'lexicon aliases count');
});

t.test('skill-hit ratio: free-text profiles use every signal; no signal gives null', async (t) => {
  const s = skillHitRatio(plan, 'I know PostgreSQL and Excel and want to learn pandas.')!;
  t.equal(s.basis, 'all_signals');
  t.same(
    s.hits.map((h) => h.id),
    ['pandas'],
  );
  t.equal(s.value, 1 / 3);
  t.equal(skillHitRatio(plan, 'I like cats.'), null);
  t.equal(skillHitRatio(plan, { tags: 'pandas', about_me: 'Excel user' })!.value, 1, 'tags and skills only when there are some');
});
