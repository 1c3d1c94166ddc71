import t from 'tap';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE, EXAMPLE_QUERY } from '../../../src/contracts/examples.js';
import { judgedRaw, judgeFactor, planJudgeMessages, planJudgePrompt, readVerdict } from '../../../src/rewards/judge/plan-rubric.js';
import { parsePlan, DEFAULT_PLAN_LIMITS } from '../../../src/plan/parse.js';

const parsed = parsePlan(JSON.stringify(EXAMPLE_PLAN), DEFAULT_PLAN_LIMITS);
if (!parsed.ok) throw new Error('the example plan does not parse');
const plan = parsed.plan;

t.test('the prompt shows the question, the learner, the reference and every step with its agent, tool and order', async (t) => {
  const prompt = planJudgePrompt({ query: EXAMPLE_QUERY, profile: EXAMPLE_PROFILE, reference: ['Use pandas.read_csv', 'Group by month'], plan });
  t.ok(prompt.startsWith(`Question: ${EXAMPLE_QUERY}`));
  t.match(prompt, `Learner: ${JSON.stringify(EXAMPLE_PROFILE)}`);
  t.match(prompt, 'A reference answer the plan should cover:\nUse pandas.read_csv\nGroup by month');
  for (const s of plan.steps) t.match(prompt, `${s.id} [`, `step ${s.id} is shown`);
  t.match(prompt, /st5 \[[^\]]*, using FileWriterTool\] \(after st4\): Write a practice exercise/);
  t.notMatch(planJudgePrompt({ query: EXAMPLE_QUERY, profile: undefined, plan }), /reference answer/, 'no reference: no reference section');
  t.match(planJudgePrompt({ query: null, profile: 'beginner', plan }), 'Question: (none given)\n\nLearner: beginner');
  const [system, user] = planJudgeMessages(prompt);
  t.equal(system!.role, 'system');
  t.match(system!.content, /1 = teaches nothing about this question/);
  t.same(user, { role: 'user', content: prompt });
});

t.test('a verdict: the rating on the first line, the reason after it; none without a rating 1-5', async (t) => {
  t.same(readVerdict('4\nThe steps build a monthly total with pandas.', 'm'), {
    score: 4,
    factor: 0.75,
    reason: 'The steps build a monthly total with pandas.',
    model: 'm',
  });
  t.same(readVerdict('Score: 1 - it restates the question.', 'm'), { score: 1, factor: 0, reason: 'Score: 1 - it restates the question.', model: 'm' });
  t.equal(readVerdict('**5**', 'm')!.score, 5);
  t.equal(readVerdict('I cannot rate this plan.', 'm'), null);
  t.equal(readVerdict('10/10', 'm'), null);
  t.equal(readVerdict(`2\n${'x'.repeat(900)}`, 'm')!.reason.length, 500, 'a rambling reason is cut');
});

t.test('J = (s − 1) / 4 scales every guarded axis and never raises one', async (t) => {
  t.same([1, 2, 3, 4, 5].map(judgeFactor), [0, 0.25, 0.5, 0.75, 1]);
  const raw = { struct: 0.8, pers: 0.4, ped: 0.6 };
  t.same(judgedRaw(raw, { score: 3, factor: 0.5, reason: '', model: 'm' }), { struct: 0.4, pers: 0.2, ped: 0.3 });
  t.same(judgedRaw(raw, { score: 5, factor: 1, reason: '', model: 'm' }), raw);
});
