import fc from 'fast-check';
import t from 'tap';
import { testApp } from '../support/app.js';
import { completionText, mutatedPlan } from '../support/arbitraries.js';

const app = await testApp({ MAX_COMPLETION_BYTES: 4096, MAX_STEPS_PER_PLAN: 50, BODY_LIMIT_BYTES: 1 << 20 });
t.teardown(() => app.close());

const inject = (payload: string, url = '/score-plan') => app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });

t.test('mutated plans, as objects or as text, are scored (200), never a 5xx', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.oneof(mutatedPlan, completionText), { minLength: 1, maxLength: 8 }), async (completions) => {
      const res = await inject(JSON.stringify({ groups: [{ query: 'q', profile: { tags: ['python'] }, completions }] }));
      return res.statusCode === 200 && res.json().groups[0].plans.length === completions.length;
    }),
    { numRuns: 150 },
  );
  t.pass('property held');
});

t.test('prototype names as ids, tags and tools are scored like any other name', async (t) => {
  const names = fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype');
  await fc.assert(
    fc.asyncProperty(fc.array(names, { minLength: 4, maxLength: 4 }), names, fc.boolean(), async ([a, b, c, d], tool, cyclic) => {
      const plan = {
        agents: [{ id: a, role: 'tutor', tools: [tool] }],
        subtasks: [{ id: b, name: 'learn' }],
        steps: [
          { id: c, subtask: b, agent: a, instruction: 'Explain it', tool, depends_on: cyclic ? [d] : [] },
          { id: d, subtask: b, agent: a, instruction: 'Check it', depends_on: [c] },
        ],
        execution_order: [c, d],
        loops: [{ id: a, nodes: [c, d], max_iterations: 2 }],
      };
      const res = await inject(
        JSON.stringify({ groups: [{ query: 'q', profile: { tags: [a, tool], signals: [b] }, completions: [JSON.stringify(plan), plan] }] }),
      );
      return res.statusCode === 200;
    }),
    { numRuns: 100 },
  );
  t.pass('property held');
});

t.test('prototype-poisoning keys inside a plan object are dropped, and the plan is scored', async (t) => {
  const payload = '{"groups":[{"query":"q","profile":"x","completions":[{"__proto__":{"agents":[]},"constructor":{"prototype":{}},"steps":[]}]}]}';
  const res = await inject(payload);
  t.equal(res.statusCode, 200);
  t.same(res.json().groups[0].plans[0].gate.reasons, ['schema_invalid']);
});

t.test('random bodies and random bytes never produce a 5xx', async (t) => {
  const body = fc.oneof(
    fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)),
    fc
      .record(
        {
          groups: fc.array(fc.record({ query: fc.jsonValue(), profile: fc.jsonValue(), completions: fc.array(fc.jsonValue()) }, { requiredKeys: [] })),
          options: fc.jsonValue(),
        },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
    fc
      .record(
        {
          groups: fc.constant([{ query: 'q', profile: 'p', completions: ['{}'] }]),
          run_id: fc.oneof(fc.string({ maxLength: 20 }), fc.constant(null), fc.jsonValue()),
          step: fc.oneof(fc.integer(), fc.double(), fc.jsonValue()),
        },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
    fc.string({ unit: 'binary', maxLength: 500 }),
    fc.uint8Array({ maxLength: 500 }).map((b) => Buffer.from(b).toString('latin1')),
  );
  await fc.assert(
    fc.asyncProperty(body, fc.constantFrom('/score-plan', '/validate-plan', '/openrlhf/reward'), async (payload, url) => {
      const res = await inject(payload, url);
      if (res.statusCode >= 500) return false;
      // Every rejection explains itself.
      return res.statusCode < 400 || typeof res.json<{ message: unknown }>().message === 'string';
    }),
    { numRuns: 300 },
  );
  t.pass('property held');
});

t.test('random run configurations and run ids never produce a 5xx', async (t) => {
  const config = fc.record(
    {
      alpha: fc.jsonValue(),
      t_warm: fc.oneof(fc.integer(), fc.double()),
      w_min: fc.double(),
      w_max: fc.double(),
      w0: fc.record({ struct: fc.oneof(fc.double(), fc.constant(1e308)), pers: fc.double(), ped: fc.double() }),
      samples_per_step: fc.oneof(fc.integer(), fc.constant(null)),
    },
    { requiredKeys: [] },
  );
  await fc.assert(
    fc.asyncProperty(fc.string({ minLength: 1, maxLength: 30 }), config, async (id, body) => {
      const url = `/runs/${encodeURIComponent(id)}`;
      const put = await app.inject({ method: 'PUT', url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      const get = await app.inject({ method: 'GET', url: `${url}/history?format=csv` });
      const score = await app.inject({
        method: 'POST',
        url: '/score-plan',
        payload: { run_id: id, groups: [{ query: 'q', profile: 'p', completions: ['{}'] }] },
      });
      return put.statusCode < 500 && get.statusCode < 500 && score.statusCode < 500;
    }),
    { numRuns: 200 },
  );
  t.pass('property held');
});
