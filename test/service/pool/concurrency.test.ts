// The pool as a shared service needs it: heavy work never stalls the probes, deadlines stop work, a full
// queue sheds at once, and a client that leaves takes its queued work with it.
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { EXAMPLE_SCORE_REQUEST } from '../../../src/contracts/examples.js';
import { readyWhen, testApp } from '../../support/app.js';
import { GED_BUDGET } from '../../../src/contracts/evaluate-plan.js';
import { densePlan, randomDensePlan } from '../../support/plans.js';

// Ten graph edit distances between random dense 15-step plans (4 against gold, 6 between them), none of
// which its search can finish: the request spends its whole GED budget, and the tests below need it running.
const slowGed = (budget: number, deadlineMs?: number) => ({
  plans: [1, 2, 3, 4].map((seed) => ({ plan: randomDensePlan(15, seed) })),
  gold: randomDensePlan(15, 9),
  options: { ged_budget: budget, ...(deadlineMs ? { deadline_ms: deadlineMs } : {}) },
});

/** A listening app whose workers have loaded the encoder, so no timing below includes model loading. */
async function listening(overrides: Parameters<typeof testApp>[0]): Promise<{ app: FastifyInstance; base: string }> {
  const app = await testApp(overrides);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  // The load goes on in the background when a short deadline ends a warm-up request.
  for (let i = 0; ; i++) {
    const warm = await app.inject({ method: 'POST', url: '/evaluate-plan', payload: { plans: [{ plan: densePlan(3, 0) }] } });
    if (warm.statusCode === 200) break;
    if (i === 100) throw new Error(`warm-up failed: ${warm.body}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { app, base };
}
const trace = (text: string) => ({ kcs: [{ id: 'loop', text: 'loops over a list', kind: 'step' }], context: [{ role: 'student', text }] });
const post = (base: string, path: string, body: unknown, signal?: AbortSignal) =>
  fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });

t.test('/health answers while a slow graph-edit-distance request runs', async (t) => {
  const { app, base } = await listening({ WORKERS: 2 });
  t.teardown(() => app.close());
  let finished = false;
  const slow = post(base, '/evaluate-plan', slowGed(GED_BUDGET.default / 2)).then(async (r) => {
    finished = true;
    return r.status;
  });
  // Probes from the moment the work is on the workers: each answered before it ends was answered during it
  // (how fast is the bench's to say: bench/concurrency.ts).
  await readyWhen(base, (p) => p.running > 0);
  let during = 0;
  while (!finished && during < 5) {
    const res = await fetch(`${base}/health`);
    t.equal(res.status, 200);
    if (!finished) during++;
  }
  t.equal(during, 5, 'probes answered while the slow request ran');
  t.equal(await slow, 200);
});

t.test('work past its deadline is stopped: 504 naming the deadline, and the worker is free again', async (t) => {
  const { app, base } = await listening({ WORKERS: 1 });
  t.teardown(() => app.close());
  const res = await post(base, '/evaluate-plan', slowGed(GED_BUDGET.max, 400));
  t.equal(res.status, 504);
  const body = (await res.json()) as { message: string };
  t.match(body.message, /deadline of 400 ms/);
  // The most search work a request may ask for was left: the worker is free long before it would have been spent.
  t.match(await readyWhen(base, (p) => p.running === 0), { pool: { running: 0 } }, 'the stopped work leaves its worker');
  const next = await post(base, '/score-plan', { ...EXAMPLE_SCORE_REQUEST, run_id: null });
  t.equal(next.status, 200);
});

t.test('the server deadline bounds every request; a body deadline cannot raise it', async (t) => {
  const { app, base } = await listening({ WORKERS: 1, REQUEST_DEADLINE_MS: 300 });
  t.teardown(() => app.close());
  const res = await post(base, '/evaluate-plan', slowGed(GED_BUDGET.max, 60_000));
  t.equal(res.status, 504);
  t.match(((await res.json()) as { message: string }).message, /deadline of 300 ms/);
});

t.test('a full queue sheds at once with Retry-After, and /ready says the pool is saturated', async (t) => {
  const { app, base } = await listening({ WORKERS: 1, MAX_QUEUE: 1 });
  t.teardown(() => app.close());
  let busyDone = false;
  const busy = post(base, '/evaluate-plan', slowGed(GED_BUDGET.default / 4)).then((r) => {
    busyDone = true;
    return r;
  });
  await readyWhen(base, (p) => p.running === 1);
  // Not long tasks: with one worker, the long lane has it, and they wait for a worker as any task would.
  const queued = post(base, '/trace-knowledge', trace('a'));
  await readyWhen(base, (p) => p.queued === 1);
  const ready = await fetch(`${base}/ready`);
  t.equal(ready.status, 503, 'a load balancer routes elsewhere');
  t.match(await ready.json(), { ready: false, reason: /saturated/, pool: { workers: 1, running: 1, queued: 1, max_queue: 1, saturated: true } });
  const shed = await post(base, '/trace-knowledge', trace('b'));
  t.notOk(busyDone, 'refused without waiting for the work ahead of it');
  t.equal(shed.status, 503);
  t.equal(shed.headers.get('retry-after'), '1');
  t.match(await shed.json(), { message: /MAX_QUEUE/ });
  t.equal((await busy).status, 200);
  t.equal((await queued).status, 200, 'the queued request was served');
  t.equal((await fetch(`${base}/ready`)).status, 200);
});

t.test('a client that disconnects takes its queued work with it', async (t) => {
  const { app, base } = await listening({ WORKERS: 1 });
  t.teardown(() => app.close());
  const busy = post(base, '/evaluate-plan', slowGed(GED_BUDGET.default / 4));
  await readyWhen(base, (p) => p.running === 1);
  const leaving = new AbortController();
  const gone = post(base, '/trace-knowledge/fit', { rows: [{ user: 1, skill: 'a', correct: 1 }] }, leaving.signal).catch((e: Error) => e.name);
  t.match(await readyWhen(base, (p) => p.queued === 1), { pool: { queued: 1 } });
  leaving.abort();
  t.equal(await gone, 'AbortError');
  t.match(await readyWhen(base, (p) => p.queued === 0, 1000), { pool: { queued: 0, running: 1 } }, 'dropped from the queue at once');
  t.equal((await busy).status, 200);
});

t.test('model work past its deadline is answered 504 and never takes the process down', async (t) => {
  // Cold: the first requests end while their worker is loading or running the ONNX encoder, where
  // terminating the thread would abort the process; they are stopped cooperatively instead.
  // 300 ms: well under the model's cold load, well over a warm one-sentence request even under coverage.
  const app = await testApp({ WORKERS: 1, REQUEST_DEADLINE_MS: 300 });
  t.teardown(() => app.close());
  const codes: number[] = [];
  for (let i = 0; i < 100 && codes.at(-1) !== 200; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/trace-knowledge',
      payload: { kcs: [{ id: 'loop', text: 'loops over a list', kind: 'step' }], context: [{ role: 'student', text: `I used a for loop over the list ${i}` }] },
    });
    codes.push(res.statusCode);
    await new Promise((r) => setTimeout(r, 100));
  }
  t.ok(codes.includes(504), `some requests ended at their deadline: ${codes.join(',')}`);
  t.equal(codes.at(-1), 200, 'and once the model is loaded the same request is served');
});

t.test('a task that outgrows its worker heap is a 503 naming WORKER_HEAP_MB, and the replaced worker serves the next', async (t) => {
  // Not warmed: the fit must find the worker idle.
  const app = await testApp({ WORKERS: 1, WORKER_HEAP_MB: 64 });
  t.teardown(() => app.close());
  const rows = Array.from({ length: 300_000 }, (_, i) => ({ user: i % 3000, skill: `s${i % 40}`, correct: i % 3 === 0 ? 0 : 1 }));
  const big = await app.inject({ method: 'POST', url: '/trace-knowledge/fit', payload: { rows } });
  t.equal(big.statusCode, 503, big.body.slice(0, 300));
  t.match(big.json(), { message: /64 MiB heap.*WORKER_HEAP_MB/ });
  const small = await app.inject({ method: 'POST', url: '/trace-knowledge/fit', payload: { rows: rows.slice(0, 200) } });
  t.equal(small.statusCode, 200, small.body.slice(0, 300));
});
