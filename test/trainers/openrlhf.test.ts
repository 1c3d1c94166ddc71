import t from 'tap';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE } from '../../src/contracts/examples.js';
import type { OpenRlhfResponse } from '../../src/contracts/openrlhf.js';
import type { RunView } from '../../src/contracts/runs.js';
import { profileOf, responseOf } from '../../src/trainers/openrlhf.js';
import { testApp } from '../support/app.js';

t.test('protocol helpers: strip the prompt, read the profile from the label', async (t) => {
  t.equal(responseOf('<|user|>Plan it<|assistant|>{"a":1}', '<|user|>Plan it<|assistant|>'), '{"a":1}');
  t.equal(responseOf('{"a":1}', 'something else'), '{"a":1}');
  t.same(profileOf({ tags: ['python'] }), { tags: ['python'] });
  t.same(profileOf({ profile: 'Java developer' }), 'Java developer');
  t.same(profileOf('{"profile": {"skills": ["SQL"]}}'), { skills: ['SQL'] });
  t.same(profileOf('{"tags": ["go"]}'), { tags: ['go'] });
  t.equal(profileOf('Plain text learner profile'), 'Plain text learner profile');
  t.equal(profileOf(undefined), '');
  t.equal(profileOf(42), '', 'an unusable label means no profile signals');
});

t.test('POST /openrlhf/reward speaks the remote reward model protocol', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const prompt = '<|im_start|>user\nPlan a pandas lesson<|im_end|>\n<|im_start|>assistant\n';
  const res = await app.inject({
    method: 'POST',
    url: '/openrlhf/reward?run_id=orl',
    payload: { query: [prompt + JSON.stringify(EXAMPLE_PLAN), prompt + 'not a plan'], prompts: [prompt, prompt], labels: [EXAMPLE_PROFILE, JSON.stringify({ profile: EXAMPLE_PROFILE })] },
  });
  t.equal(res.statusCode, 200);
  const body = res.json<OpenRlhfResponse>();
  const w = 1 / 3;
  const { struct, pers, ped } = { struct: body.extra_logs.struct[0]!, pers: body.extra_logs.pers[0]!, ped: body.extra_logs.ped[0]! };
  t.same([struct, ped], [1, 1]);
  t.ok(pers > 0);
  t.ok(Math.abs(body.rewards[0]! - (w * struct + w * pers + w * ped)) < 1e-12);
  t.equal(body.rewards[1], -10, 'unparseable: 0 on every axis plus R_hard');
  t.same(body.scores.map((s) => s > 0), [true, false]);
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
    const res = await app.inject({ method: 'POST', url: '/openrlhf/reward?run_id=chunk', payload: { query: [JSON.stringify(EXAMPLE_PLAN)], labels: ['python'] } });
    steps.push(res.json<OpenRlhfResponse>().extra_logs.step[0]!);
  }
  t.same(steps, [0, 0, 0, 0, 1, 1, 1, 1, 2]);
  t.equal((await app.inject({ method: 'GET', url: '/runs/chunk' })).json<RunView>().finalized_steps, 2);
  const bad = await app.inject({ method: 'POST', url: '/openrlhf/reward', payload: { query: ['a', 'b'], prompts: ['a'] } });
  t.equal(bad.statusCode, 400);
  t.match(bad.json(), { issues: [{ path: '$.prompts' }] });
});
