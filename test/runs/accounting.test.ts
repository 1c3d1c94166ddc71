import t from 'tap';
import { asCompletion, BENCH_PROFILES, realisticPlan } from '../../bench/realistic-plans.js';
import { mulberry32 } from '../../src/common/rng.js';
import type { HistoryRow, RunView } from '../../src/contracts/runs.js';
import { testApp } from '../support/app.js';
import { projectByEnumeration } from '../support/capped-simplex.js';

const app = await testApp();
await app.listen({ port: 0, host: '127.0.0.1' });
t.teardown(() => app.close());
const address = app.server.address();
const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as unknown;
}

function makeGroups(seed: number, count: number, profile: unknown = undefined) {
  const rand = mulberry32(seed);
  return Array.from({ length: count }, (_, i) => ({
    id: `g${i}`,
    query: 'q',
    profile: profile ?? BENCH_PROFILES[(seed + i) % BENCH_PROFILES.length]!,
    completions: Array.from({ length: 4 }, () => {
      const r = rand();
      return asCompletion(realisticPlan(rand, { cycle: r < 0.15, badTool: r > 0.85, dangling: r > 0.5 && r < 0.6 }), rand);
    }),
  }));
}

t.test('a step split over concurrent requests, with retries, gives bit-identical weights to the whole step', async (t) => {
  const config = { t_warm: 2, t_refresh: 3, alpha: 0.25, eta_w: 1.5 };
  await call('PUT', '/runs/whole', config);
  await call('PUT', '/runs/split', config);
  const rand = mulberry32(99);
  for (let step = 0; step < 24; step++) {
    const groups = makeGroups(1000 + step, 6);
    await call('POST', '/score-plan', { run_id: 'whole', step, groups });
    const parts = [groups.slice(0, 1), groups.slice(1, 3), groups.slice(3, 4), groups.slice(4, 6)];
    // Shuffle the arrival order, send everything at once, and retry some requests with their key.
    parts.sort(() => rand() - 0.5);
    const sends = parts.flatMap((part, i) => {
      const request = () => call('POST', '/score-plan', { run_id: 'split', step, groups: part }, { 'idempotency-key': `s${step}-p${i}` });
      return rand() < 0.5 ? [request(), request()] : [request()];
    });
    await Promise.all(sends);
  }
  await call('POST', '/runs/whole/finalize');
  await call('POST', '/runs/split/finalize');
  const whole = (await call('GET', '/runs/whole')) as RunView;
  const split = (await call('GET', '/runs/split')) as RunView;
  for (const k of ['struct', 'pers', 'ped'] as const) {
    t.equal(split.weights[k], whole.weights[k], `weight ${k} bit-identical`);
    t.equal(split.ema![k], whole.ema![k], `EMA ${k} bit-identical`);
  }
  t.notSame(whole.weights, { struct: 1 / 3, pers: 1 / 3, ped: 1 / 3 }, 'the weights did move');
  const rows = async (id: string) => ((await call('GET', `/runs/${id}/history`)) as { rows: HistoryRow[] }).rows;
  const [w, s] = [await rows('whole'), await rows('split')];
  t.same(
    s.map((r) => [r.step, r.plans, r.gated, r.mean, r.weights, r.ema, r.weights_after]),
    w.map((r) => [r.step, r.plans, r.gated, r.mean, r.weights, r.ema, r.weights_after]),
  );
  t.ok(
    s.every((r) => r.requests >= 4),
    'each split step really arrived in several requests',
  );
});

t.test('mini-GRPO, 300 steps, personalization lagging: weight flows to it, as recomputed from the history', async (t) => {
  // Profile signals the plans never mention: R_pers stays near 0, far below ρ = 0.4.
  const profile = { tags: ['haskell', 'erlang'], skills: ['fortran'] };
  for (let step = 0; step < 300; step++) {
    await app.inject({ method: 'POST', url: '/score-plan', payload: { run_id: 'lag', step, groups: makeGroups(step, 1, profile) } });
  }
  await app.inject({ method: 'POST', url: '/runs/lag/finalize' });
  const run = (await app.inject({ method: 'GET', url: '/runs/lag' })).json<RunView>();
  const history = (await app.inject({ method: 'GET', url: '/runs/lag/history?limit=1000' })).json<{ rows: HistoryRow[] }>().rows;
  t.equal(history.length, 300);
  t.same(
    history.filter((r) => r.refreshed).map((r) => r.step),
    [50, 150, 250],
  );

  // Independent recomputation from the recorded step means (PersonalPlan A.1), not using the service's code.
  const c = run.config;
  let m: number[] | null = null;
  let w = [c.w0.struct, c.w0.pers, c.w0.ped];
  for (const row of history) {
    const mean = [row.mean.struct, row.mean.pers, row.mean.ped];
    t.ok(
      [row.weights.struct, row.weights.pers, row.weights.ped].every((x, i) => Math.abs(x - w[i]!) < 1e-12),
      `step ${row.step} composed with the weights in force`,
    );
    m = m === null ? mean : m.map((x, i) => (1 - c.alpha) * x + c.alpha * mean[i]!);
    if (row.step >= c.t_warm && (row.step - c.t_warm) % c.t_refresh === 0) {
      // The weight refresh as this service reads the bounds: the step normalized, projected onto the weights
      // within [w_min, w_max] that sum to 1 (docs/rewards.md §6), by brute force.
      const raw = w.map((x, i) => x * Math.exp(c.eta_w * (c.rho - m![i]!)));
      const sum = raw.reduce((a, b) => a + b, 0);
      w = projectByEnumeration(
        raw.map((x) => x / sum),
        c.w_min,
        c.w_max,
      );
    }
    t.ok(
      [row.ema.struct, row.ema.pers, row.ema.ped].every((x, i) => Math.abs(x - m![i]!) < 1e-12),
      `EMA after step ${row.step}`,
    );
  }
  t.ok(
    [run.weights.struct, run.weights.pers, run.weights.ped].every((x, i) => Math.abs(x - w[i]!) < 1e-12),
    'final weights match',
  );
  t.ok(
    history.every((r) => Object.values(r.weights_after).every((x) => x >= c.w_min && x <= c.w_max)),
    'every weight within [w_min, w_max]',
  );
  const refreshes = history.filter((r) => r.refreshed);
  t.ok(
    refreshes.every((r) => r.weights_after.pers > r.weights.pers),
    'each refresh moves weight toward personalization',
  );
  t.ok(run.weights.pers > 0.4 && run.weights.struct < 1 / 3, `final weights ${JSON.stringify(run.weights)}`);
  t.ok(run.ema!.pers < 0.2, `personalization lagged: EMA ${run.ema!.pers}`);
});
