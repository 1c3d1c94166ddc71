import t from 'tap';
import { EXAMPLE_PLAN, EXAMPLE_SCORE_REQUEST } from '../../src/contracts/examples.js';
import { testApp } from '../support/app.js';
import { startOpenAiStub, type StubCall } from '../support/openai-stub.js';

const group = EXAMPLE_SCORE_REQUEST.groups[0]!;
// The example's real plan, the same plan again, a hollow plan for the same question, and a completion that does not parse.
const hollow = {
  ...EXAMPLE_PLAN,
  steps: EXAMPLE_PLAN.steps.map((s) => ({ ...s, instruction: 'Help the learner with this topic in a clear and friendly way.' })),
};
const completions = [JSON.stringify(EXAMPLE_PLAN), JSON.stringify(EXAMPLE_PLAN), JSON.stringify(hollow), 'Here is the plan: {"agents": ['];
const guarded = (options: object = {}) => ({
  run_id: null,
  groups: [{ ...group, completions }],
  options: { reward_profile: 'guarded', judge: true, ...options },
});

// The stub rates a plan by what its steps say: the hollow one 1, any other 4.
const userText = (c: StubCall) => c.body.messages[1]!.content;
const rating = (c: StubCall) => ({
  content: userText(c).includes('Help the learner with this topic') ? '1\nThe steps say nothing about the report.' : '4\nSpecific pandas steps.',
});

interface Plan {
  raw: Record<string, number>;
  judge?: { score: number; factor: number; reason: string; model: string };
  gaming: { guarded: { raw: Record<string, number> } } | null;
}

t.test('options.judge: every parsed plan rated once, its guarded raw rewards scaled by J, the verdict in the answer', async (t) => {
  const stub = await startOpenAiStub(rating);
  t.teardown(stub.close);
  const app = await testApp({ JUDGE_BASE_URL: stub.baseUrl, JUDGE_MODEL: 'judge-7b' });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/score-plan', payload: guarded() });
  t.equal(res.statusCode, 200, res.body.slice(0, 300));
  const plans = res.json().groups[0].plans as Plan[];
  t.equal(stub.calls.length, 2, 'the repeated plan is asked once, the unparsed one never');
  t.equal(stub.calls[0]!.body.model, 'judge-7b');
  t.match(userText(stub.calls[0]!), group.query);
  t.same(
    plans.map((p) => p.judge?.score),
    [4, 4, 1, undefined],
  );
  t.same(plans[2]!.judge, { score: 1, factor: 0, reason: 'The steps say nothing about the report.', model: 'judge-7b' });
  for (const p of plans.slice(0, 3)) {
    for (const k of ['struct', 'pers', 'ped']) t.equal(p.raw[k], p.gaming!.guarded.raw[k]! * p.judge!.factor, `raw.${k} = gaming.guarded.raw.${k} · J`);
  }
  t.ok(plans[0]!.raw.ped! > 0 && plans[2]!.raw.ped === 0);

  const again = await app.inject({ method: 'POST', url: '/score-plan', payload: guarded({ detail: 'rewards' }) });
  t.equal(again.statusCode, 200);
  t.equal(stub.calls.length, 2, 'verdicts are cached: the same plans again ask the judge nothing');
  t.same(
    (again.json().groups[0].plans as Plan[]).map((p) => p.judge?.score),
    [4, 4, 1, undefined],
    'with detail "rewards" too',
  );
});

t.test('without the judge the guarded answer is the one the judge scales; the paper profile is never judged', async (t) => {
  const stub = await startOpenAiStub(rating);
  t.teardown(stub.close);
  const app = await testApp({ JUDGE_BASE_URL: stub.baseUrl });
  t.teardown(() => app.close());
  const plain = await app.inject({ method: 'POST', url: '/score-plan', payload: guarded({ judge: false }) });
  t.equal(stub.calls.length, 0);
  const plans = plain.json().groups[0].plans as Plan[];
  t.notOk('judge' in plans[0]!);
  t.same(plans[0]!.raw, plans[0]!.gaming!.guarded.raw);
  const paper = await app.inject({ method: 'POST', url: '/score-plan', payload: guarded({ reward_profile: 'paper' }) });
  t.equal(paper.statusCode, 400);
  t.match(paper.json().issues, [{ path: '$.options.judge', message: /reward_profile to "guarded"/ }]);
  t.equal(stub.calls.length, 0);
});

t.test('a service without JUDGE_BASE_URL refuses options.judge by name', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/score-plan', payload: guarded() });
  t.equal(res.statusCode, 400);
  t.match(res.json().issues, [{ path: '$.options.judge', message: /JUDGE_BASE_URL/ }]);
});

t.test('a judge that fails: 503 judge_unavailable with Retry-After, and nothing counted', async (t) => {
  const down = await startOpenAiStub(() => ({ status: 502 }));
  t.teardown(down.close);
  const mute = await startOpenAiStub(() => ({ content: 'This plan looks fine to me.' }));
  t.teardown(mute.close);
  for (const [stub, why] of [
    [down, /HTTP 502/],
    [mute, /without a rating 1-5: "This plan looks fine to me."/],
  ] as const) {
    const app = await testApp({ JUDGE_BASE_URL: stub.baseUrl, JUDGE_RETRIES: 1 });
    const res = await app.inject({ method: 'POST', url: '/score-plan', payload: { ...guarded(), run_id: 'judged' } });
    t.equal(res.statusCode, 503);
    t.equal(res.json().code, 'judge_unavailable');
    t.match(res.json().message, why);
    t.ok(Number(res.headers['retry-after']) > 0);
    const run = await app.inject({ method: 'GET', url: '/runs/judged' });
    t.equal(run.statusCode, 404, 'the request created and counted nothing');
    await app.close();
  }
  t.equal(down.calls.length, 4, 'two distinct plans, each tried twice (JUDGE_RETRIES 1)');
});

t.test("a judge that never answers is cut by the request's deadline: 504, and not asked again", async (t) => {
  const stalled = await startOpenAiStub(() => ({ content: '5', delayMs: 600_000 }));
  t.teardown(stalled.close);
  const app = await testApp({ JUDGE_BASE_URL: stalled.baseUrl, JUDGE_CONCURRENCY: 1 });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/score-plan', payload: guarded({ deadline_ms: 300 }) });
  t.equal(res.statusCode, 504);
  t.equal(res.json().code, 'deadline_exceeded');
  t.equal(stalled.calls.length, 1, 'the call in flight was abandoned, the next plan never sent');
});

t.test('a request large enough for the workers carries each prompt back to the main thread', async (t) => {
  const stub = await startOpenAiStub(rating);
  t.teardown(stub.close);
  const app = await testApp({ JUDGE_BASE_URL: stub.baseUrl, WORKERS: 1 });
  t.teardown(() => app.close());
  const many = Array.from({ length: 12 }, () => ({ ...group, completions }));
  const res = await app.inject({ method: 'POST', url: '/score-plan', payload: { ...guarded(), groups: many } });
  t.equal(res.statusCode, 200);
  const scores = (res.json().groups as { plans: Plan[] }[]).map((g) => g.plans.map((p) => p.judge?.score));
  t.same(
    scores,
    Array.from({ length: 12 }, () => [4, 4, 1, undefined]),
  );
  t.equal(stub.calls.length, 2);
});
