import t from 'tap';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE, EXAMPLE_QUERY, EXAMPLE_SCORE_REQUEST } from '../../src/contracts/examples.js';
import { GAMING_SIGNAL_CODES } from '../../src/contracts/gaming.js';
import type { ScorePlanResponse } from '../../src/contracts/score-plan.js';
import { metricValue as value, testApp } from '../support/app.js';

t.test('/metrics: requests by route and status, the pool, models, and per run plans, gate reasons and weights', async (t) => {
  const app = await testApp({ WORKERS: 1 });
  t.teardown(() => app.close());
  for (let i = 0; i < 3; i++) {
    const res = await app.inject({ method: 'POST', url: '/score-plan', payload: { ...EXAMPLE_SCORE_REQUEST, run_id: 'm1', step: i } });
    t.equal(res.statusCode, 200);
  }
  const late = await app.inject({ method: 'POST', url: '/score-plan', payload: { ...EXAMPLE_SCORE_REQUEST, run_id: 'm1', step: 0 } });
  t.equal(late.json().run.status, 'late');
  await app.inject({ method: 'GET', url: '/runs/nope' });
  const res = await app.inject({ method: 'GET', url: '/metrics' });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/);
  const m = res.body;
  t.equal(value(m, 'http_requests_total{method="POST",route="/score-plan",status="200"}'), 4);
  t.equal(value(m, 'http_requests_total{method="GET",route="/runs/:id",status="404"}'), 1, 'the route pattern, not the URL');
  t.equal(value(m, 'http_request_duration_seconds_count{method="POST",route="/score-plan",status="200"}'), 4);
  t.equal(value(m, 'http_requests_in_flight'), 1, 'the scrape itself');
  t.equal(value(m, 'tutor_pool_workers'), 1);
  t.equal(value(m, 'tutor_pool_queued'), 0);
  t.equal(value(m, 'tutor_capability_ready{capability="verify_turn"}'), 0, 'not loaded yet');
  t.equal(value(m, 'tutor_run_store_available{engine="sqlite"}'), 1);
  // The example group: one clean plan, one with a cycle, one that does not parse; four requests.
  t.equal(value(m, 'tutor_plans_scored_total{run="m1"}'), 12);
  t.equal(value(m, 'tutor_plans_gated_total{run="m1",reason="cycle"}'), 4);
  t.equal(value(m, 'tutor_plans_gated_total{run="m1",reason="parse_error"}'), 4);
  t.equal(value(m, 'tutor_late_plans_total{run="m1"}'), 3);
  const run = (await app.inject({ method: 'GET', url: '/runs/m1' })).json();
  t.equal(value(m, 'tutor_run_weight{run="m1",axis="struct"}'), run.weights.struct);
  t.equal(value(m, 'tutor_run_ema{run="m1",axis="ped"}'), run.ema.ped, 'the EMA after the last finalized step');
  t.equal(value(m, 'tutor_run_step{run="m1"}'), 0, 'the late request counted nowhere, its step was 0');
  t.ok(value(m, 'process_resident_memory_bytes') > 0, 'process metrics');

  t.equal((await app.inject({ method: 'DELETE', url: '/runs/m1' })).statusCode, 204);
  const after = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  t.notMatch(after, /run="m1"/, 'a deleted run leaves no series behind');
});

t.test('/metrics: plans per run and gaming signal, as the responses flagged them, and the histogram of their aboutness', async (t) => {
  const app = await testApp({ WORKERS: 1 });
  t.teardown(() => app.close());
  // The example plan beside the same step said twelve times by one agent, in two requests.
  const repeated = {
    ...EXAMPLE_PLAN,
    steps: Array.from({ length: 12 }, (_, i) => ({ ...EXAMPLE_PLAN.steps[2]!, id: `r${i}`, depends_on: i === 0 ? [] : [`r${i - 1}`] })),
  };
  // Under the guarded profile, whose credit every plan's aboutness comes from.
  await app.inject({ method: 'PUT', url: '/runs/g1', payload: { reward_profile: 'guarded' } });
  const flags: Record<string, number> = {};
  const abouts: number[] = [];
  for (let step = 0; step < 2; step++) {
    const group = { query: EXAMPLE_QUERY, profile: EXAMPLE_PROFILE, completions: [EXAMPLE_PLAN, repeated, 'not a plan'] };
    // The trainers' detail: the aboutness is there too.
    const options = { detail: step === 0 ? 'full' : 'rewards' };
    const res = (await app.inject({ method: 'POST', url: '/score-plan', payload: { run_id: 'g1', step, groups: [group], options } })).json<ScorePlanResponse>();
    for (const code of res.groups[0]!.plans.flatMap((p) => p.gaming_flags)) flags[code] = (flags[code] ?? 0) + 1;
    const plans = res.groups[0]!.plans;
    t.equal(plans[2]!.aboutness, null, 'an unparsed plan has no aboutness');
    for (const p of plans.slice(0, 2)) abouts.push(p.aboutness!);
  }
  t.ok(Object.keys(flags).length > 0, `the repeated-step plan raised signals: ${JSON.stringify(flags)}`);
  const series = (signal: string) => `tutor_plans_flagged_total{run="g1",signal="${signal}"}`;
  const m = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const counted = Object.fromEntries(GAMING_SIGNAL_CODES.filter((s) => m.includes(series(s))).map((s) => [s, value(m, series(s))]));
  t.same(counted, flags, 'a series for each signal raised, counting the plans that raised it');
  t.ok(
    abouts.every((a) => a >= 0 && a <= 1),
    `aboutness in [0, 1]: ${abouts.join(', ')}`,
  );
  t.equal(value(m, 'tutor_plan_aboutness_count{run="g1"}'), 4, 'the parsed plans only');
  t.ok(Math.abs(value(m, 'tutor_plan_aboutness_sum{run="g1"}') - abouts.reduce((a, b) => a + b, 0)) < 1e-12, 'their sum');
  for (const le of [0, 0.25, 0.5, 0.75, 0.9, 1]) {
    t.equal(value(m, `tutor_plan_aboutness_bucket{le="${le}",run="g1"}`), abouts.filter((a) => a <= le).length, `bucket le=${le}`);
  }
  t.equal(value(m, 'tutor_plan_aboutness_bucket{le="+Inf",run="g1"}'), 4);
  t.match(m, /# TYPE tutor_plan_aboutness histogram/);
  t.equal((await app.inject({ method: 'DELETE', url: '/runs/g1' })).statusCode, 204);
  t.notMatch((await app.inject({ method: 'GET', url: '/metrics' })).body, /run="g1"/, 'a deleted run leaves no series behind');
});

t.test('/metrics needs a read key when keys are configured', async (t) => {
  const app = await testApp({ API_KEYS: 'read:metrics-key-0123456789' });
  t.teardown(() => app.close());
  t.equal((await app.inject({ method: 'GET', url: '/metrics' })).statusCode, 401);
  t.equal((await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer metrics-key-0123456789' } })).statusCode, 200);
});

t.test('/metrics counts encoder cache hits and misses over the worker threads', async (t) => {
  const { readFileSync } = await import('node:fs');
  type Pair = { dependency_all: string; reference_steps: string; model_1: { conversation: Record<string, string>[] } };
  const [pair] = JSON.parse(readFileSync(new URL('../fixtures/coding-tutor/example_eval_pairs.json', import.meta.url), 'utf8')) as Pair[];
  const payload = {
    task: { dependency_all: pair!.dependency_all, reference_steps: pair!.reference_steps },
    context: pair!.model_1.conversation.map((m) => ({ role: Object.keys(m)[0], text: Object.values(m)[0] })),
  };
  for (const workers of [1, 0]) {
    const app = await testApp({ WORKERS: workers });
    const lookups = async () => {
      const m = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      return {
        hits: value(m, 'tutor_encoder_cache_lookups_total{result="hit"}'),
        misses: value(m, 'tutor_encoder_cache_lookups_total{result="miss"}'),
      };
    };
    t.same(await lookups(), { hits: 0, misses: 0 }, `WORKERS=${workers}: nothing embedded yet`);
    t.equal((await app.inject({ method: 'POST', url: '/trace-knowledge', payload })).statusCode, 200);
    const first = await lookups();
    t.ok(first.misses > 0, `WORKERS=${workers}: the first request embeds (${first.misses} misses, ${first.hits} hits)`);
    t.equal((await app.inject({ method: 'POST', url: '/trace-knowledge', payload })).statusCode, 200);
    const second = await lookups();
    t.equal(second.misses, first.misses, `WORKERS=${workers}: the same texts again embed nothing`);
    // The first request loaded the encoder in each worker (or the main thread), and each load's warm-up looked up one text.
    const warmUps = Math.max(1, workers);
    t.equal(second.hits - first.hits, first.hits + first.misses - warmUps, `WORKERS=${workers}: every lookup of the repeat is a hit`);
    await app.close();
  }
});
