import t from 'tap';
import { GED_BUDGET } from '../../src/contracts/evaluate-plan.js';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE } from '../../src/contracts/examples.js';
import { testApp } from '../support/app.js';
import { randomDensePlan } from '../support/plans.js';

t.test('POST /evaluate-plan: A.4 metrics per plan, TS against gold, cross-plan scores; an unreadable plan is reported', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  // A second plan of the same query: the last step no longer depends on its predecessor.
  const variant = { ...EXAMPLE_PLAN, steps: EXAMPLE_PLAN.steps.map((s, i, all) => (i === all.length - 1 ? { ...s, depends_on: [] } : s)) };
  const res = await app.inject({
    method: 'POST',
    url: '/evaluate-plan',
    payload: {
      plans: [{ plan: EXAMPLE_PLAN, profile: EXAMPLE_PROFILE }, { plan: '```json\n{ "agents": [ }\n```' }, { plan: JSON.stringify(variant) }],
      gold: EXAMPLE_PLAN,
    },
  });
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.match(body.plans[0], { index: 0, parsed: true, metrics: { structural_similarity: { value: 1, ged: 0, exact: true }, phases: { value: 1 } } });
  t.ok(body.plans[0].metrics.tool_binding.value > 0 && body.plans[0].metrics.tool_binding.value <= 1);
  t.ok(body.plans[0].metrics.skill_hits.value > 0);
  t.match(body.plans[1], { index: 1, parsed: false, violations: [{ code: 'parse_error' }] });
  t.notOk('metrics' in body.plans[1]);
  const removed = EXAMPLE_PLAN.steps.at(-1)!.depends_on?.length ?? 0;
  t.match(body.plans[2].metrics.structural_similarity, { ged: removed, exact: true });
  t.ok(Math.abs(body.plans[2].metrics.structural_similarity.value - Math.exp(-removed / 2.5)) < 1e-12, 'TS = exp(−GED/κ)');
  t.match(body.cross, { plans: [0, 2], role_jaccard: 1, mean_ged: removed });
  t.same(body.options, { kappa: 2.5, delta_tbq: 0.1, ged_budget: GED_BUDGET.default });
});

t.test('POST /evaluate-plan: dense plans spend the GED budget and get every distance with its bounds, the same each time', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const payload = {
    plans: [1, 2, 3, 4].map((seed) => ({ plan: randomDensePlan(15, seed) })),
    gold: randomDensePlan(15, 9),
    options: { ged_budget: 20_000_000 },
  };
  const answer = async () => {
    const res = await app.inject({ method: 'POST', url: '/evaluate-plan', payload });
    t.equal(res.statusCode, 200);
    const { latency_ms: _, ...body } = res.json();
    return body;
  };
  const body = await answer();
  const distances = [...body.plans.map((p: { metrics: { structural_similarity: object } }) => p.metrics.structural_similarity), ...body.cross.pairs];
  t.equal(distances.length, 10, 'four against gold, six pairs');
  for (const d of distances) t.match(d, { exact: false, ged_bounds: { upper: d.ged } });
  t.ok(
    distances.every((d: { ged_bounds: { lower: number; upper: number } }) => d.ged_bounds.lower < d.ged_bounds.upper),
    'bounds, not a value',
  );
  t.match(body, { cross: { exact: false }, options: { ged_budget: 20_000_000 } });
  t.same(await answer(), body, 'the same request, the same answer');
});

t.test('POST /evaluate-plan: bad requests are 400s naming the field', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  for (const [payload, path] of [
    [{ plans: [] }, '$.plans'],
    [{ plans: [{ plan: EXAMPLE_PLAN }], options: { kappa: 0 } }, '$.options.kappa'],
    [{ plans: [{ plan: EXAMPLE_PLAN }], options: { ged_budget: GED_BUDGET.max + 1 } }, '$.options.ged_budget'],
    [{ plans: [{ plan: EXAMPLE_PLAN, profil: {} }] }, '$.plans[0].profil'],
  ] as const) {
    const r = await app.inject({ method: 'POST', url: '/evaluate-plan', payload: payload as object });
    t.equal(r.statusCode, 400);
    t.ok(
      r.json().issues.some((i: { path: string }) => i.path === path),
      JSON.stringify(r.json().issues),
    );
  }
});
