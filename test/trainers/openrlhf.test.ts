import t from 'tap';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE } from '../../src/contracts/examples.js';
import type { OpenRlhfResponse } from '../../src/contracts/openrlhf.js';
import type { RunView } from '../../src/contracts/runs.js';
import { profileOf, responseOf } from '../../src/trainers/openrlhf.js';
import { testApp } from '../support/app.js';

t.test('protocol helpers: strip the prompt, read the profile from the label', async (t) => {
  t.equal(responseOf('<|user|>Plan it<|assistant|>{"a":1}', '<|user|>Plan it<|assistant|>'), '{"a":1}');
  t.equal(responseOf('{"a":1}', 'something else'), '{"a":1}');
  const read = (label: unknown) => profileOf(label).profile;
  t.same(read({ tags: ['python'] }), { tags: ['python'] });
  t.same(read({ profile: 'Java developer' }), 'Java developer');
  t.same(read('{"profile": {"skills": ["SQL"]}}'), { skills: ['SQL'] });
  t.same(read('{"tags": ["go"]}'), { tags: ['go'] });
  t.same(read('["go", "rust"]'), ['go', 'rust'], 'a list of tags');
  t.same(read({ tags: ['go'], skills: null, about_me: null }), { tags: ['go'], skills: null, about_me: null }, 'null fields accepted (read as absent)');
  t.equal(read('Plain text learner profile'), 'Plain text learner profile');
  t.same(profileOf(undefined), { profile: '', ignored: false }, 'no label: no profile, nothing ignored');
  t.same(profileOf(42), { profile: '', ignored: true }, 'an unusable label: no profile signals, and said so');
});

t.test('POST /openrlhf/reward speaks the remote reward model protocol', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const prompt = '<|im_start|>user\nPlan a pandas lesson<|im_end|>\n<|im_start|>assistant\n';
  const res = await app.inject({
    method: 'POST',
    url: '/openrlhf/reward?run_id=orl',
    payload: {
      query: [prompt + JSON.stringify(EXAMPLE_PLAN), `${prompt}not a plan`],
      prompts: [prompt, prompt],
      labels: [EXAMPLE_PROFILE, JSON.stringify({ profile: EXAMPLE_PROFILE })],
    },
  });
  t.equal(res.statusCode, 200);
  const body = res.json<OpenRlhfResponse>();
  const w = 1 / 3;
  const { struct, pers, ped } = { struct: body.extra_logs.struct[0]!, pers: body.extra_logs.pers[0]!, ped: body.extra_logs.ped[0]! };
  t.same([struct, ped], [1, 1]);
  t.ok(pers > 0);
  t.ok(Math.abs(body.rewards[0]! - (w * struct + w * pers + w * ped)) < 1e-12);
  t.equal(body.rewards[1], -10, 'unparseable: 0 on every axis plus R_hard');
  t.same(
    body.scores.map((s) => s > 0),
    [true, false],
  );
  t.same(body.extra_logs.gated, [0, 1]);
  const alone = await app.inject({ method: 'POST', url: '/validate-plan', payload: { plan: EXAMPLE_PLAN, query: prompt, profile: EXAMPLE_PROFILE } });
  t.equal(
    body.extra_logs.aboutness[0],
    alone.json<{ aboutness: number | null }>().aboutness ?? 0,
    "the plan's aboutness, as /validate-plan gives it (0 for none)",
  );
  t.equal(body.extra_logs.aboutness[1], 0, 'unparseable: 0, as on every axis');
  t.same(body.extra_logs.step, [0, 0]);
  const run = (await app.inject({ method: 'GET', url: '/runs/orl' })).json<RunView>();
  t.equal(run.last_finalized_step, 0, 'without samples_per_step, the request is its own step');
});

t.test('samples_per_step groups single-sample requests into steps; length mismatches are 400s', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  await app.inject({ method: 'PUT', url: '/runs/chunk', payload: { samples_per_step: 4 } });
  const steps: number[] = [];
  for (let i = 0; i < 9; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/openrlhf/reward?run_id=chunk',
      payload: { query: [JSON.stringify(EXAMPLE_PLAN)], labels: ['python'] },
    });
    steps.push(res.json<OpenRlhfResponse>().extra_logs.step[0]!);
  }
  t.same(steps, [0, 0, 0, 0, 1, 1, 1, 1, 2]);
  t.equal((await app.inject({ method: 'GET', url: '/runs/chunk' })).json<RunView>().finalized_steps, 2);
  const bad = await app.inject({ method: 'POST', url: '/openrlhf/reward', payload: { query: ['a', 'b'], prompts: ['a'] } });
  t.equal(bad.statusCode, 400);
  t.match(bad.json(), { issues: [{ path: '$.prompts' }] });
});

// OpenRLHF's SingleTurnAgentExecutor (openrlhf/utils/agent.py at OpenRLHF/OpenRLHF@3c3be62) sends each
// sample, as lists of one, to the first --reward.remote_url and the same request with empty lists to every
// other one, retrying 5 times on an error status and then leaving the reward None.
t.test('an empty request (what every remote_url but the first receives) is an empty answer and opens no step', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/openrlhf/reward?run_id=second', payload: { query: [], prompts: [], labels: [] } });
  t.equal(res.statusCode, 200, res.body);
  t.same(res.json(), {
    rewards: [],
    scores: [],
    extra_logs: { struct: [], pers: [], ped: [], gated: [], flagged: [], aboutness: [], step: [], counted: [], replayed: [], profile_ignored: [] },
  });
  t.equal((await app.inject({ method: 'GET', url: '/runs/second' })).statusCode, 404, 'no run was created');
});

// Hugging Face `datasets` turns a struct column's missing keys into None (null in JSON), and a label
// column may be a plain list of tags.
t.test('profiles as datasets give them: null fields are absent, a list is tags, and an unreadable label is reported', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const plan = JSON.stringify(EXAMPLE_PLAN);
  const full = { tags: ['python', 'pandas'], about_me: null, skills: null, experience: null, goals: null, signals: null };
  const res = await app.inject({
    method: 'POST',
    url: '/openrlhf/reward?run_id=null',
    payload: { query: [plan, plan, plan, plan], labels: [{ tags: ['python', 'pandas'] }, full, ['python', 'pandas'], 42] },
  });
  t.equal(res.statusCode, 200, res.body);
  const body = res.json<OpenRlhfResponse>();
  t.equal(body.extra_logs.pers[1], body.extra_logs.pers[0], 'nulls read as absent, not as a reason to drop the profile');
  t.equal(body.extra_logs.pers[2], body.extra_logs.pers[0], 'a bare list is the tags');
  t.ok(body.extra_logs.pers[0]! > 0);
  t.same(body.extra_logs.profile_ignored, [0, 0, 0, 1], 'the label that is no profile is said so');

  const scored = await app.inject({
    method: 'POST',
    url: '/score-plan',
    payload: {
      run_id: null,
      groups: [
        { query: 'q', profile: full, completions: [plan] },
        { query: 'q', profile: ['python', 'pandas'], completions: [plan] },
      ],
    },
  });
  t.equal(scored.statusCode, 200, scored.body);
  const groups = scored.json<{ groups: { plans: { raw: { pers: number } }[] }[] }>().groups;
  t.equal(groups[0]!.plans[0]!.raw.pers, body.extra_logs.pers[0]);
  t.equal(groups[1]!.plans[0]!.raw.pers, body.extra_logs.pers[0]);
});

const runView = async (app: Awaited<ReturnType<typeof testApp>>, id: string) => (await app.inject({ method: 'GET', url: `/runs/${id}` })).json<RunView>();
const plansIn = (v: RunView) => v.open_step?.plans ?? 0;

// GRPO with a policy whose entropy has dropped sends identical samples: each is a sample, never a retry. OpenRLHF's
// _post_request (OpenRLHF/OpenRLHF@3c3be62 openrlhf/utils/agent.py) retries with the same body and no key, so its
// retries count again (docs/trainers.md): only a key tells a retry from a sample.
t.test('without a key every request counts: 32 identical samples together, then 32 more, fill two steps of 32', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  await app.inject({ method: 'PUT', url: '/runs/same', payload: { samples_per_step: 32 } });
  const payload = { query: [JSON.stringify(EXAMPLE_PLAN)], prompts: [''], labels: ['python'] };
  const post = () => app.inject({ method: 'POST', url: '/openrlhf/reward?run_id=same', payload });
  const answers: OpenRlhfResponse[] = [];
  for (let round = 0; round < 2; round++) answers.push(...(await Promise.all(Array.from({ length: 32 }, post))).map((r) => r.json<OpenRlhfResponse>()));
  t.same(
    answers.map((a) => [a.extra_logs.counted[0], a.extra_logs.replayed[0]]),
    Array.from({ length: 64 }, () => [1, 0]),
    'all 64 counted, none taken for a replay',
  );
  t.same(
    answers.map((a) => a.extra_logs.step[0]),
    [...Array.from({ length: 32 }, () => 0), ...Array.from({ length: 32 }, () => 1)],
    'the batches line up with the steps',
  );
  const view = await runView(app, 'same');
  t.equal(view.finalized_steps, 2, 'each step closed as its 32nd sample arrived');
  const history = (await app.inject({ method: 'GET', url: '/runs/same/history' })).json<{ rows: { plans: number }[] }>().rows;
  t.same(
    history.map((r) => r.plans),
    [32, 32],
  );
});

t.test('an Idempotency-Key tells retries from identical samples exactly; count=false scores without counting', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  await app.inject({ method: 'PUT', url: '/runs/keyed', payload: { samples_per_step: 100 } });
  const payload = { query: [JSON.stringify(EXAMPLE_PLAN)], labels: ['python'] };
  const post = (key: string) => app.inject({ method: 'POST', url: '/openrlhf/reward?run_id=keyed', payload, headers: { 'idempotency-key': key } });
  const answers: OpenRlhfResponse[] = [];
  for (const key of ['a', 'b', 'a', 'c', 'b']) answers.push((await post(key)).json<OpenRlhfResponse>());
  t.equal(plansIn(await runView(app, 'keyed')), 3, 'three keys, three samples');
  t.same(
    answers.map((a) => [a.extra_logs.counted[0], a.extra_logs.replayed[0]]),
    [
      [1, 0],
      [1, 0],
      [0, 1],
      [1, 0],
      [0, 1],
    ],
    'a replay says so and that it counted nothing',
  );
  t.same(answers[2]!.rewards, answers[0]!.rewards, 'with the reward as it was given');
  const other = await app.inject({
    method: 'POST',
    url: '/openrlhf/reward?run_id=keyed',
    payload: { ...payload, labels: ['java'] },
    headers: { 'idempotency-key': 'a' },
  });
  t.equal(other.statusCode, 409, 'a key reused for other samples');
  const dry = await app.inject({ method: 'POST', url: '/openrlhf/reward?run_id=keyed&count=false', payload });
  t.equal(dry.statusCode, 200, dry.body);
  t.same(dry.json<OpenRlhfResponse>().extra_logs.counted, [0]);
  t.same(dry.json<OpenRlhfResponse>().rewards, (await post('a')).json<OpenRlhfResponse>().rewards, "the run's weights");
  t.equal(plansIn(await runView(app, 'keyed')), 3, 'count=false left the run alone');
  t.equal((await app.inject({ method: 'POST', url: '/openrlhf/reward?run_id=keyed&count=maybe', payload })).statusCode, 400);
});

t.test('a resumed trainer replaying a finalized step is told its samples were not counted', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const post = (step: number, i: number) =>
    app.inject({
      method: 'POST',
      url: `/openrlhf/reward?run_id=resumed&step=${step}`,
      payload: { query: [JSON.stringify({ ...EXAMPLE_PLAN, id: i })], labels: ['x'] },
    });
  t.same((await post(0, 0)).json<OpenRlhfResponse>().extra_logs.counted, [1]);
  t.same((await post(1, 1)).json<OpenRlhfResponse>().extra_logs.counted, [1]);
  const replayed = (await post(0, 2)).json<OpenRlhfResponse>();
  t.same([replayed.extra_logs.counted, replayed.extra_logs.step], [[0], [0]], 'step 0 was finalized when step 1 began');
});

t.test('thousands of concurrent single-sample requests are gathered, none shed, each counted once', async (t) => {
  const app = await testApp({ WORKERS: 1, MAX_QUEUE: 1 });
  t.teardown(() => app.close());
  const n = 600;
  await app.inject({ method: 'PUT', url: '/runs/burst', payload: { samples_per_step: n } });
  const answers = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      app.inject({
        method: 'POST',
        url: '/openrlhf/reward?run_id=burst',
        payload: { query: [JSON.stringify({ ...EXAMPLE_PLAN, id: i })], labels: ['python'] },
      }),
    ),
  );
  t.same([...new Set(answers.map((a) => a.statusCode))], [200], 'no request refused, with one worker and a queue of one task');
  t.same([...new Set(answers.map((a) => a.json<OpenRlhfResponse>().extra_logs.step[0]))], [0], 'one step');
  const view = await runView(app, 'burst');
  t.equal(view.finalized_steps, 1, 'the step closed at samples_per_step');
  const history = (await app.inject({ method: 'GET', url: '/runs/burst/history' })).json<{ rows: Array<{ plans: number; requests: number }> }>();
  t.same([history.rows[0]!.plans, history.rows[0]!.requests], [n, n], 'every request counted once');
});

// OpenRLHF's PPOTrainer.evaluate (OpenRLHF/OpenRLHF@3c3be62 openrlhf/trainer/ppo_trainer.py) sends evaluation samples
// through the same executor and reward URL, unmarked: the evaluation data set marks its labels.
t.test('a label marked "evaluation": true is scored with the run’s weights and not counted; a mixed request is a 400', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  await app.inject({ method: 'PUT', url: '/runs/evald', payload: { samples_per_step: 100 } });
  const plan = JSON.stringify(EXAMPLE_PLAN);
  const post = (labels: unknown[]) => app.inject({ method: 'POST', url: '/openrlhf/reward?run_id=evald', payload: { query: labels.map(() => plan), labels } });
  const trained = (await post([{ profile: ['python'] }])).json<OpenRlhfResponse>();
  for (const label of [{ profile: ['python'], evaluation: true }, JSON.stringify({ profile: ['python'], evaluation: true })]) {
    const res = await post([label]);
    t.equal(res.statusCode, 200, res.body);
    const body = res.json<OpenRlhfResponse>();
    t.same([body.extra_logs.counted, body.rewards], [[0], trained.rewards], 'not counted, the same reward and profile');
  }
  t.equal(plansIn(await runView(app, 'evald')), 1, 'only the training sample counted');
  const mixed = await post([{ profile: ['python'], evaluation: true }, ['python']]);
  t.equal(mixed.statusCode, 400);
  t.match(mixed.json(), { issues: [{ path: '$.labels' }] });
});
