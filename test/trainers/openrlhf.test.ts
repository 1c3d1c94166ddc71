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
  t.same(res.json(), { rewards: [], scores: [], extra_logs: { struct: [], pers: [], ped: [], gated: [], flagged: [], step: [], profile_ignored: [] } });
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
