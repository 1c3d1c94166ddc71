// Several service processes on one state database are exact: a run whose steps are each split over three
// requests, sent at once to three processes, ends with the history one process gives the same requests in
// order — also when one of the three is killed mid-run and its requests are retried on another.
import t from 'tap';
import { asCompletion, BENCH_PROFILES, realisticPlan } from '../../bench/realistic-plans.js';
import { mulberry32 } from '../../src/common/rng.js';
import type { HistoryRow, RunView } from '../../src/contracts/runs.js';
import { startService, type Service } from '../support/service.js';
import { ENGINES, stateSettings, type Engine } from '../support/stores.js';

const STEPS = 60;
const CONFIG = { t_warm: 2, t_refresh: 3, alpha: 0.25, eta_w: 1.5 };

function groups(seed: number) {
  const rand = mulberry32(seed);
  return Array.from({ length: 2 }, (_, i) => ({
    id: `g${i}`,
    query: 'q',
    profile: BENCH_PROFILES[(seed + i) % BENCH_PROFILES.length]!,
    completions: Array.from({ length: 4 }, () => {
      const r = rand();
      return asCompletion(realisticPlan(rand, { cycle: r < 0.15, badTool: r > 0.85 }), rand);
    }),
  }));
}
const body = (step: number, part: number) => ({ run_id: 'r', step, groups: groups(1000 * step + part) });

async function post(base: string, path: string, payload: unknown, key?: string): Promise<{ run: { counted: boolean; weights: unknown } }> {
  const res = await fetch(base + path, {
    method: path.startsWith('/runs/') && !path.endsWith('finalize') ? 'PUT' : 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify(payload),
  });
  if (res.status !== 200 && res.status !== 201) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as { run: { counted: boolean; weights: unknown } };
}
const get = async <T>(base: string, path: string) => (await (await fetch(base + path)).json()) as T;
const strip = (rows: HistoryRow[]) => rows.map((r) => ({ ...r, finalized_at: '' }));

/** The reference: one process, every request in order. */
async function inOrder(engine: Engine): Promise<{ history: HistoryRow[]; run: RunView }> {
  const solo = await startService({ ...(await stateSettings(engine)), WORKERS: '1' });
  try {
    await post(solo.base, '/runs/r', CONFIG);
    for (let step = 0; step < STEPS; step++) for (let part = 0; part < 3; part++) await post(solo.base, '/score-plan', body(step, part));
    await post(solo.base, '/runs/r/finalize', {});
    return { history: (await get<{ rows: HistoryRow[] }>(solo.base, '/runs/r/history')).rows, run: await get<RunView>(solo.base, '/runs/r') };
  } finally {
    solo.child.kill('SIGKILL');
  }
}

for (const engine of ENGINES) {
  t.test(`${engine}: three processes, each step split over all three at once`, async (t) => {
    const reference = await inOrder(engine);
    const state = await stateSettings(engine);
    const replicas: Service[] = [];
    for (let i = 0; i < 3; i++) replicas.push(await startService({ ...state, WORKERS: '1' }));
    t.teardown(() =>
      replicas.forEach((r) => {
        r.child.kill('SIGKILL');
      }),
    );

    await post(replicas[0]!.base, '/runs/r', CONFIG);
    const killAt = 30;
    for (let step = 0; step < STEPS; step++) {
      const answers = await Promise.all(
        [0, 1, 2].map(async (part) => {
          const key = `${step}-${part}`;
          const target = replicas[part]!;
          if (step === killAt && part === 2) {
            // Killed while its request is in flight: committed or not, the retry elsewhere must count it once.
            const sent = post(target.base, '/score-plan', body(step, part), key).catch(() => null);
            await new Promise((r) => setTimeout(r, 5 + (step % 7)));
            target.child.kill('SIGKILL');
            const first = await sent;
            const retried = await post(replicas[0]!.base, '/score-plan', body(step, part), key);
            if (first) t.same(retried, first, 'the retry of an answered request gets the same answer');
            return retried;
          }
          const alive = step > killAt && part === 2 ? replicas[1]! : target;
          return post(alive.base, '/score-plan', body(step, part), key);
        }),
      );
      t.ok(
        answers.every((a) => a.run.counted && JSON.stringify(a.run.weights) === JSON.stringify(answers[0]!.run.weights)),
        `step ${step}: all three counted, with the same weights`,
      );
    }
    await post(replicas[1]!.base, '/runs/r/finalize', {});
    const history = (await get<{ rows: HistoryRow[] }>(replicas[0]!.base, '/runs/r/history')).rows;
    t.equal(history.length, STEPS);
    t.same(strip(history), strip(reference.history), 'means, EMA, weights and plan counts of every step, bit for bit');
    const run = await get<RunView>(replicas[1]!.base, '/runs/r');
    t.same({ ...run, created_at: '', updated_at: '' }, { ...reference.run, created_at: '', updated_at: '' });
  });
}
