import t from 'tap';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE, EXAMPLE_QUERY } from '../../src/contracts/examples.js';
import type { ValidatePlanResponse } from '../../src/contracts/validate-plan.js';
import { testApp } from '../support/app.js';

const app = await testApp();
t.teardown(() => app.close());
const post = (payload: unknown) => app.inject({ method: 'POST', url: '/validate-plan', payload: payload as object });

t.test('one plan: violations, raw components, topology, no group terms', async (t) => {
  const res = await post({ plan: EXAMPLE_PLAN, profile: EXAMPLE_PROFILE });
  t.equal(res.statusCode, 200);
  const body = res.json<ValidatePlanResponse>();
  t.equal(body.parsed, true);
  t.same(body.violations, []);
  t.equal(body.raw.struct, 1);
  t.equal(body.raw.ped, 1);
  t.ok(body.raw.pers > 0 && body.raw.pers < 1);
  t.match(body.topology, { steps: 10, edges: 10, critical_path: 9 });
  t.ok(body.signals.length > 0);
  t.notOk('advantage' in body);
});

t.test('without a profile, personalization is not computed', async (t) => {
  const body = (await post({ plan: JSON.stringify(EXAMPLE_PLAN) })).json<ValidatePlanResponse>();
  t.equal(body.components?.pers, null);
  t.equal(body.raw.pers, 0);
  t.same(body.signals, []);
});

t.test('a broken plan is a 200 with the gate reason; a missing plan field is a 400', async (t) => {
  const res = await post({ plan: '{"agents": [' });
  t.equal(res.statusCode, 200);
  t.match(res.json(), { parsed: false, gate: { failed: true, reasons: ['parse_error'] }, components: null, score: 0 });
  const strict = await post({ plan: { ...EXAMPLE_PLAN, execution_order: EXAMPLE_PLAN.execution_order.slice(1) }, options: { strict: true } });
  t.match(strict.json(), { gate: { failed: true, reasons: ['missing_from_order'] } });
  const missing = await post({ profile: 'x' });
  t.equal(missing.statusCode, 400);
  t.match(missing.json(), { issues: [{ path: '$.plan' }] });
});

t.test('a misspelt plan field is a warning with its path, and gates under strict', async (t) => {
  const steps = EXAMPLE_PLAN.steps.map((s, i) => (i === 3 ? { ...s, depends_om: ['st1'] } : s));
  const plan = { ...EXAMPLE_PLAN, steps };
  const lenient = (await post({ plan })).json<ValidatePlanResponse>();
  t.match(lenient, { parsed: true, gate: { failed: false } });
  t.match(lenient.violations, [{ code: 'unknown_field', severity: 'warning', path: '$.steps[3].depends_om', message: /did you mean `depends_on`/ }]);
  const strict = (await post({ plan, options: { strict: true } })).json<ValidatePlanResponse>();
  t.match(strict.gate, { failed: true, reasons: ['unknown_field'], classes: [] });
});

t.test('gaming signals: a plan about something else is off topic, the real plan raises none', async (t) => {
  const bread = {
    ...EXAMPLE_PLAN,
    steps: EXAMPLE_PLAN.steps.map((s, i) => ({
      ...s,
      instruction: i % 2 ? 'Knead the dough until it is smooth.' : 'Water the tomato seedlings in the morning.',
    })),
  };
  const withQuery = await post({ plan: bread, profile: EXAMPLE_PROFILE, query: EXAMPLE_QUERY });
  t.equal(withQuery.statusCode, 200, withQuery.body);
  t.ok(withQuery.json<{ gaming_flags: string[] }>().gaming_flags.includes('off_topic'));
  const real = await post({ plan: EXAMPLE_PLAN, profile: EXAMPLE_PROFILE, query: EXAMPLE_QUERY });
  t.same(real.json<{ gaming_flags: string[] }>().gaming_flags, []);
  // Aboutness beside the flags: G, as the guarded credit reads it.
  const options = { reward_profile: 'guarded' };
  const off = (await post({ plan: bread, profile: EXAMPLE_PROFILE, query: EXAMPLE_QUERY, options })).json<ValidatePlanResponse>();
  const on = (await post({ plan: EXAMPLE_PLAN, profile: EXAMPLE_PROFILE, query: EXAMPLE_QUERY, options })).json<ValidatePlanResponse>();
  t.equal(on.aboutness, on.gaming!.guarded?.about);
  t.ok(on.aboutness! > off.aboutness!, `the real plan is more about the question: ${on.aboutness} against ${off.aboutness}`);
  t.equal((await post({ plan: 'not a plan', options })).json<ValidatePlanResponse>().aboutness, null, 'null when the plan did not parse');
  t.equal(real.json<ValidatePlanResponse>().aboutness, real.json<ValidatePlanResponse>().gaming!.guarded?.about ?? null, 'under paper, as gaming.guarded says');
});
