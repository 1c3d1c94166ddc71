import t from 'tap';
import { asCompletion, BENCH_PROFILES, realisticPlan } from '../../bench/realistic-plans.js';
import { mulberry32 } from '../../src/common/rng.js';
import { orderIndependentMean } from '../../src/grpo/stats.js';
import type { HistoryRow, RunView } from '../../src/contracts/runs.js';
import type { ScorePlanResponse } from '../../src/contracts/score-plan.js';
import { testApp } from '../support/app.js';

const app = await testApp();
t.teardown(() => app.close());
const inject = (method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method, url, payload: payload as object, headers });

const rand = mulberry32(11);
const group = (i: number, n = 4) => ({
  id: `g${i}`,
  query: 'q',
  profile: BENCH_PROFILES[i % BENCH_PROFILES.length]!,
  completions: Array.from({ length: n }, () => {
    const r = rand();
    return asCompletion(realisticPlan(rand, { cycle: r < 0.2, badTool: r > 0.8 }), rand);
  }),
});

t.test('create, configure, read, list and delete a run', async (t) => {
  const created = await inject('PUT', '/runs/exp-1', { alpha: 0.2, t_warm: 10 });
  t.equal(created.statusCode, 201);
  t.match(created.json(), { id: 'exp-1', config: { alpha: 0.2, t_warm: 10, t_refresh: 100, rho: 0.4, lambda_hard: 10 }, ema: null, last_finalized_step: null });
  const updated = await inject('PUT', '/runs/exp-1', { w0: { struct: 2, pers: 1, ped: 1 } });
  t.equal(updated.statusCode, 200);
  t.same(updated.json<RunView>().weights, { struct: 0.5, pers: 0.25, ped: 0.25 }, 'before the first step, new initial weights apply');
  t.equal((await inject('GET', '/runs/exp-1')).json<RunView>().config.alpha, 0.2);
  t.ok((await inject('GET', '/runs')).json<{ runs: RunView[] }>().runs.some((r) => r.id === 'exp-1'));
  t.equal((await inject('DELETE', '/runs/exp-1')).statusCode, 204);
  t.equal((await inject('GET', '/runs/exp-1')).statusCode, 404);
  t.equal((await inject('DELETE', '/runs/exp-1')).statusCode, 404);
  t.equal((await inject('GET', '/runs/nope/history')).statusCode, 404);
  t.equal((await inject('POST', '/runs/nope/finalize')).statusCode, 404);
});

t.test('bad run configuration and ids are 400s naming the field', async (t) => {
  for (const [url, body, path] of [
    ['/runs/x', { w_min: 0.8, w_max: 0.2 }, '$.w_min'],
    ['/runs/x', { alpha: 0 }, '$.alpha'],
    ['/runs/x', { t_refresh: 0 }, '$.t_refresh'],
    ['/runs/x', { bogus: 1 }, '$'],
    ['/runs/x', { w0: { struct: 0, pers: 0, ped: 0 } }, '$.w0'],
    // Three weights summing to 1 cannot all be at least 0.4, nor all at most 0.3.
    ['/runs/x', { w_min: 0.4 }, '$.w_min'],
    ['/runs/x', { w_max: 0.3 }, '$.w_max'],
    ['/runs/x', { w0: { struct: 1, pers: 0, ped: 0 } }, '$.w0'],
    ['/runs/bad%20id', {}, '$.id'],
  ] as const) {
    const res = await inject('PUT', url, body);
    t.equal(res.statusCode, 400, JSON.stringify(body));
    if (path === '$.w_min' || path === '$.w_max') t.notOk(res.body.includes('$.w0'), 'bounds no weights fit: w0 is not judged against them');
    t.ok(
      res.json<{ issues: { path: string }[] }>().issues.some((i) => i.path.startsWith(path)),
      `${path}: ${res.body}`,
    );
  }
  const badStep = await inject('POST', '/score-plan', { run_id: 'x', step: -1, groups: [group(0)] });
  t.equal(badStep.statusCode, 400);
  t.match(badStep.json(), { issues: [{ path: '$.step' }] });
});

t.test('a scoring request reports its step; history in JSON and CSV', async (t) => {
  await inject('PUT', '/runs/h', { t_warm: 0, t_refresh: 1 });
  const first = (await inject('POST', '/score-plan', { run_id: 'h', step: 0, groups: [group(1), group(2)] })).json<ScorePlanResponse>();
  t.match(first.run, { id: 'h', step: 0, status: 'open', counted: true, finalized: [] });
  t.same(first.weights, first.run!.weights);
  const second = (await inject('POST', '/score-plan', { run_id: 'h', step: 1, groups: [group(3)] })).json<ScorePlanResponse>();
  t.same(
    second.run!.finalized.map((r) => [r.step, r.plans, r.requests]),
    [[0, 8, 1]],
  );
  t.notSame(second.weights, first.weights, 'step 1 uses the weights refreshed after step 0');
  const history = (await inject('GET', '/runs/h/history')).json<{ total: number; rows: Array<{ step: number }> }>();
  t.same([history.total, history.rows.map((r) => r.step)], [1, [0]]);
  const csv = await inject('GET', '/runs/h/history?format=csv');
  t.match(csv.headers['content-type'], /text\/csv/);
  const [header, row] = csv.body.trim().split('\n');
  t.match(
    header,
    /^step,plans,gated,gated_fraction,requests,late_plans,mean_struct,mean_pers,mean_ped,w_struct.*,gate_reasons,diversity,flagged,gaming,aboutness$/,
  );
  const cells = Object.fromEntries(header!.split(',').map((h, i) => [h, row!.split(',')[i]]));
  const step0 = second.run!.finalized[0]!;
  t.equal(
    cells.gate_reasons,
    Object.entries(step0.gate_reasons!)
      .map(([r, n]) => `${r}:${n}`)
      .join(' '),
  );
  t.equal(Number(cells.diversity), step0.diversity);
  t.equal(Number(cells.flagged), step0.flagged);
  t.equal(cells.aboutness, step0.aboutness === null ? '' : String(step0.aboutness), 'the mean aboutness, empty for null');
  t.equal(
    cells.gaming,
    Object.entries(step0.gaming!)
      .map(([code, n]) => `${code}:${n}`)
      .join(' '),
  );
  t.equal(Number(row!.split(',')[6]), second.run!.finalized[0]!.mean.struct, 'CSV numbers round-trip exactly');
  const page = (await inject('GET', '/runs/h/history?offset=1&limit=5')).json<{ rows: unknown[]; offset: number }>();
  t.same([page.rows.length, page.offset], [0, 1]);
  const fin = (await inject('POST', '/runs/h/finalize')).json<{ finalized: { step: number } }>();
  t.equal(fin.finalized.step, 1);
});

t.test('stateless scoring: run_id null records nothing', async (t) => {
  const res = (await inject('POST', '/score-plan', { run_id: null, groups: [group(4)] })).json<ScorePlanResponse>();
  t.equal(res.run, null);
  t.same(res.weights, { struct: 1 / 3, pers: 1 / 3, ped: 1 / 3 });
  t.notOk((await inject('GET', '/runs')).json<{ runs: RunView[] }>().runs.some((r) => r.id === 'null'));
});

t.test('Idempotency-Key: a retry returns the same bytes and is not counted; a different body under the key is a 409', async (t) => {
  const body = { run_id: 'idem', step: 3, groups: [group(5)] };
  const a = await inject('POST', '/score-plan', body, { 'idempotency-key': 'k1' });
  const b = await inject('POST', '/score-plan', body, { 'idempotency-key': 'k1' });
  t.equal(a.statusCode, 200);
  t.equal(b.body, a.body);
  t.equal(b.headers['idempotent-replayed'], 'true');
  t.equal((await inject('GET', '/runs/idem')).json<RunView>().open_step?.plans, 4, 'counted once');
  const conflict = await inject('POST', '/score-plan', { ...body, groups: [group(6)] }, { 'idempotency-key': 'k1' });
  t.equal(conflict.statusCode, 409);
  const otherStep = await inject('POST', '/score-plan', { ...body, step: 4 }, { 'idempotency-key': 'k1' });
  t.equal(otherStep.json<ScorePlanResponse>().run?.step, 4, 'the key is scoped to its step');
});

t.test('an evicted reply is rebuilt byte for byte from its receipt, and still not counted', async (t) => {
  const tiny = await testApp({ REPLAY_CACHE_BYTES: 1 }); // no reply body fits: every retry is rebuilt
  t.teardown(() => tiny.close());
  await tiny.inject({ method: 'PUT', url: '/runs/ev', payload: { t_warm: 0, t_refresh: 1 } });
  const body = { run_id: 'ev', step: 0, groups: [group(7), group(8)] };
  const first = await tiny.inject({ method: 'POST', url: '/score-plan', payload: body, headers: { 'idempotency-key': 'e1' } });
  // Step 1 finalizes step 0 and refreshes the weights; the retry must still carry step 0's weights.
  await tiny.inject({ method: 'POST', url: '/score-plan', payload: { run_id: 'ev', step: 1, groups: [group(9)] } });
  const retry = await tiny.inject({ method: 'POST', url: '/score-plan', payload: body, headers: { 'idempotency-key': 'e1' } });
  t.equal(retry.headers['idempotent-replayed'], 'true');
  t.equal(retry.body, first.body, 'byte-identical');
  const history = (await tiny.inject({ method: 'GET', url: '/runs/ev/history' })).json<{ rows: Array<{ step: number; plans: number; late_plans: number }> }>();
  t.same(
    history.rows.map((r) => [r.step, r.plans, r.late_plans]),
    [[0, 8, 0]],
    'counted once, not even as late',
  );
  t.equal((await tiny.inject({ method: 'GET', url: '/runs/ev' })).json<RunView>().open_step?.plans, 4);
});

t.test('MAX_RUNS: a scoring request or PUT that would create one run too many gets 403 run_quota; GET /runs pages', async (t) => {
  const small = await testApp({ MAX_RUNS: 2 });
  t.teardown(() => small.close());
  const score = (run_id: string) => small.inject({ method: 'POST', url: '/score-plan', payload: { run_id, groups: [group(0, 2)] } });
  t.equal((await score('q1')).statusCode, 200);
  t.equal((await small.inject({ method: 'PUT', url: '/runs/q2', payload: {} })).statusCode, 201);
  const over = await score('q3');
  t.equal(over.statusCode, 403);
  t.match(over.json(), { code: 'run_quota', message: /2 runs exist, the most this service keeps \(MAX_RUNS\)/ });
  t.equal((await small.inject({ method: 'PUT', url: '/runs/q3', payload: {} })).json().code, 'run_quota');
  t.equal((await score('q1')).statusCode, 200, 'an existing run keeps scoring');
  const first = (await small.inject({ method: 'GET', url: '/runs?limit=1' })).json<{ runs: RunView[]; next_cursor: string }>();
  t.same([first.runs.map((r) => r.id), first.next_cursor], [['q1'], 'q1']);
  const second = (await small.inject({ method: 'GET', url: `/runs?limit=1&cursor=${first.next_cursor}` })).json<{ runs: RunView[]; next_cursor: null }>();
  t.same([second.runs.map((r) => r.id), second.next_cursor], [['q2'], null]);
  t.equal((await small.inject({ method: 'GET', url: '/runs?limit=0' })).statusCode, 400);
});

t.test('a query number that is not one says which numbers it takes, not "NaN"', async (t) => {
  for (const [url, path, message] of [
    ['/runs?limit=abc', '$.limit', 'expected a whole number from 1 to 1000'],
    ['/runs?limit=2.5', '$.limit', 'expected a whole number from 1 to 1000'],
    ['/runs/default/history?limit=ten', '$.limit', 'expected a whole number from 1 to 10000'],
    ['/runs/default/history?offset=-1', '$.offset', 'expected a whole number ≥ 0'],
  ] as const) {
    const res = await inject('GET', url);
    t.equal(res.statusCode, 400, url);
    t.same(res.json().issues, [{ path, message }], url);
  }
  const step = await inject('POST', '/openrlhf/reward?step=x', { query: ['q'] });
  t.same(step.json().issues, [{ path: '$.step', message: 'expected a whole number ≥ 0' }]);
});

t.test('a finalized step records its gate reasons and the mean diversity of its groups', async (t) => {
  const { EXAMPLE_PLAN, EXAMPLE_PROFILE } = await import('../../src/contracts/examples.js');
  const renamed = { ...EXAMPLE_PLAN, agents: EXAMPLE_PLAN.agents.map((a) => ({ ...a, role: `other ${a.role}` })) };
  const cyclic = { ...EXAMPLE_PLAN, steps: EXAMPLE_PLAN.steps.map((s) => (s.id === 'st1' ? { ...s, depends_on: ['st10'] } : s)) };
  const groups = [
    // Three plans of one structure (one of them cyclic, still readable: its edges differ by one).
    { query: 'q', profile: EXAMPLE_PROFILE, completions: [EXAMPLE_PLAN, EXAMPLE_PLAN, EXAMPLE_PLAN] },
    // The same structure under other role names: no hand-off in common, distance 1.
    { query: 'q', profile: EXAMPLE_PROFILE, completions: [EXAMPLE_PLAN, renamed, 'not a plan'] },
    // One readable plan: no pair, no diversity; its cycle still counts as a gate reason.
    { query: 'q', profile: EXAMPLE_PROFILE, completions: [cyclic] },
  ];
  t.equal((await inject('POST', '/score-plan', { run_id: 'div', step: 0, groups })).statusCode, 200);
  t.equal((await inject('POST', '/score-plan', { run_id: 'div', step: 0, groups: [groups[2]!] })).statusCode, 200);
  const finalized = (await inject('POST', '/runs/div/finalize')).json<{ finalized: { gate_reasons: unknown } }>().finalized;
  const history = (await inject('GET', '/runs/div/history')).json<{ rows: Array<{ gated: number; gate_reasons: unknown; diversity: number }> }>();
  t.same(history.rows[0]!.gate_reasons, { parse_error: 1, cycle: 2 });
  t.same(finalized.gate_reasons, history.rows[0]!.gate_reasons, 'the finalize answer carries the same row');
  t.equal(history.rows[0]!.gated, 3);
  t.equal(history.rows[0]!.diversity, (0 + 1) / 2, 'the mean over the two groups with a pair');
});

t.test('a finalized step records how many of its plans raised each gaming signal, and their mean aboutness, as its responses gave them', async (t) => {
  const { EXAMPLE_PLAN, EXAMPLE_PROFILE, EXAMPLE_QUERY } = await import('../../src/contracts/examples.js');
  // One step said twelve times by one agent: a plan built for the soft rewards, not for the learner.
  const repeated = {
    ...EXAMPLE_PLAN,
    steps: Array.from({ length: 12 }, (_, i) => ({ ...EXAMPLE_PLAN.steps[2]!, id: `r${i}`, depends_on: i === 0 ? [] : [`r${i - 1}`] })),
  };
  const group = { query: EXAMPLE_QUERY, profile: EXAMPLE_PROFILE, completions: [EXAMPLE_PLAN, repeated, repeated, 'not a plan'] };
  // Under the guarded profile, whose credit every plan's aboutness comes from.
  await inject('PUT', '/runs/gaming', { reward_profile: 'guarded' });
  const expected = { flagged: 0, gaming: {} as Record<string, number> };
  const abouts: number[] = [];
  for (const options of [undefined, { detail: 'rewards' }]) {
    const res = (await inject('POST', '/score-plan', { run_id: 'gaming', step: 0, groups: [group], options })).json<ScorePlanResponse>();
    for (const plan of res.groups[0]!.plans) {
      if (plan.gaming_flags.length > 0) expected.flagged++;
      for (const code of plan.gaming_flags) expected.gaming[code] = (expected.gaming[code] ?? 0) + 1;
      if (plan.aboutness !== null) abouts.push(plan.aboutness);
    }
  }
  t.equal(abouts.length, 6, 'an aboutness for each parsed plan, in both detail levels');
  t.ok(expected.flagged >= 4, `the repeated-step plans raised signals in both detail levels: ${JSON.stringify(expected)}`);
  const { finalized } = (await inject('POST', '/runs/gaming/finalize')).json<{ finalized: HistoryRow }>();
  t.same({ flagged: finalized.flagged, gaming: finalized.gaming }, expected);
  t.equal(finalized.aboutness, orderIndependentMean(abouts), 'the mean over the parsed plans');
  const history = (await inject('GET', '/runs/gaming/history')).json<{ rows: HistoryRow[] }>();
  t.same(
    [history.rows[0]!.flagged, history.rows[0]!.gaming, history.rows[0]!.aboutness],
    [expected.flagged, expected.gaming, finalized.aboutness],
    'kept in the history',
  );
  const unparsed = { ...group, completions: ['not a plan'] };
  t.equal((await inject('POST', '/score-plan', { run_id: 'gaming', step: 1, groups: [unparsed] })).statusCode, 200);
  t.equal((await inject('POST', '/runs/gaming/finalize')).json<{ finalized: HistoryRow }>().finalized.aboutness, null, 'no parsed plan: null');
});

t.test('finalize names its step: the open one is closed, another is a 409 and closes nothing, a finalized one is a no-op', async (t) => {
  const count = (step: number) => inject('POST', '/score-plan', { run_id: 'fin', step, groups: [group(4)] });
  t.equal((await count(0)).statusCode, 200);
  const closed = await inject('POST', '/runs/fin/finalize', { step: 0 });
  t.equal(closed.statusCode, 200);
  t.equal(closed.json<{ finalized: { step: number } }>().finalized.step, 0);
  const again = await inject('POST', '/runs/fin/finalize', { step: 0 });
  t.same([again.statusCode, again.json<{ finalized: unknown }>().finalized], [200, null], 'a retry finalizes nothing twice');
  // The next step's first request arrives before a late finalize of the step it means.
  t.equal((await count(1)).statusCode, 200);
  const late = await inject('POST', '/runs/fin/finalize', { step: 2 });
  t.equal(late.statusCode, 409);
  t.match(late.json(), { code: 'step_conflict', message: /step 2 is not the open step of run "fin": step 1 is/ });
  t.equal((await inject('GET', '/runs/fin')).json<RunView>().open_step?.step, 1, 'step 1 stays open');
  t.equal((await inject('POST', '/runs/fin/finalize', { step: 1, extra: true })).statusCode, 400, 'a strict body');
  t.equal((await inject('POST', '/runs/fin/finalize')).json<{ finalized: { step: number } }>().finalized.step, 1, 'without a body: the open step');
  const none = await inject('POST', '/runs/fin/finalize', { step: 2 });
  t.same([none.statusCode, none.json<{ finalized: unknown }>().finalized], [200, null], 'no open step: nothing to close');
  t.equal((await count(2)).statusCode, 200);
  t.equal((await inject('POST', '/runs/fin/finalize', {})).json<{ finalized: { step: number } }>().finalized.step, 2, '{}: the open step');
});
