import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { EXAMPLE_SCORE_REQUEST } from '../../src/contracts/examples.js';
import { VERIFY_LIMITS, type VerifyTurnRequest, VerifyTurnRequestSchema } from '../../src/contracts/verify-turn.js';
import { appMetric, example, testApp } from '../support/app.js';

const EXAMPLE_VERIFY_REQUEST = example(VerifyTurnRequestSchema) as VerifyTurnRequest;
const BYO = fileURLToPath(new URL('../fixtures/tiny-cross-encoder', import.meta.url));
const request = {
  task: { description: 'python code', solution_steps: ['loop'] },
  context: [
    { role: 'tutor', text: 'the tutor asks a question ?' },
    { role: 'student', text: 'the loop runs slow' },
  ],
  candidates: ['the code runs fast', 'recursion ?', 'the loop , the loop , the loop'],
};

t.test('POST /verify-turn ranks the candidates with the configured verifier', async (t) => {
  const app = await testApp({ VERIFIER_DIR: BYO });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/verify-turn', payload: request });
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.equal(body.scores.length, 3);
  t.ok(body.scores.every((s: number) => s >= 0 && s <= 1));
  const order = [0, 1, 2].sort((a, b) => body.scores[b] - body.scores[a]);
  t.same(body.ranking, order, 'best first');
  t.same(body.best, { index: order[0], text: request.candidates[order[0]!], score: body.scores[order[0]!] });
  t.same(body.model, { name: 'tiny-cross-encoder', version: 'fixture-1', kind: 'cross-encoder' });
  t.same(
    body.candidates.map((c: { index: number }) => c.index),
    [0, 1, 2],
  );

  const top = await app.inject({ method: 'POST', url: '/verify-turn', payload: { ...request, options: { top_k: 2 } } });
  t.same(top.json().ranking, order.slice(0, 2), 'top_k limits the ranking, not the scores');
  t.same(top.json().scores, body.scores, 'deterministic');

  const ready = await app.inject({ method: 'GET', url: '/ready' });
  t.same(ready.json().capabilities.verify_turn, { ready: true, reason: 'ok' });
});

t.test('POST /verify-turn with the default model explains each candidate by its predicted dimensions', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/verify-turn', payload: EXAMPLE_VERIFY_REQUEST });
  t.equal(res.statusCode, 200);
  const { candidates } = res.json() as { candidates: { dimensions: Record<string, number>; features: Record<string, number> }[] };
  for (const c of candidates) {
    t.equal(Object.keys(c.dimensions).length, 8);
    t.ok(Object.values(c.dimensions).every((p) => p >= 0 && p <= 1));
    t.ok('reveals_final_answer' in c.features);
  }
  // The example's first candidate states the answer; the second asks a question.
  t.ok(candidates[0]!.dimensions.reveals_answer! > candidates[1]!.dimensions.reveals_answer!);
});

t.test('POST /verify-turn reads candidates against the reference code: one that pastes it is flagged and never ranks first', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const reference_code = 'def running_total(xs):\n    total, out = 0, []\n    for x in xs:\n        total += x\n        out.append(total)\n    return out';
  const pasted = `Try this:\n\`\`\`python\n${reference_code.replaceAll('total', 'acc')}\n\`\`\``;
  const guiding = 'Close! What is the total after adding the first two numbers, 1 and 2?';
  const payload = { ...EXAMPLE_VERIFY_REQUEST, task: { ...EXAMPLE_VERIFY_REQUEST.task, reference_code }, candidates: [pasted, guiding, 'Try again.'] };
  const res = await app.inject({ method: 'POST', url: '/verify-turn', payload });
  t.equal(res.statusCode, 200, res.body);
  const body = res.json() as {
    ranking: number[];
    best: { index: number };
    candidates: { dimensions: Record<string, number>; reveals: { kind: string; span: [number, number] } | null }[];
  };
  const [p, g, other] = body.candidates;
  t.equal(p!.reveals?.kind, 'reference_code');
  t.match(pasted.slice(...p!.reveals!.span), /acc, out = 0[\s\S]*return out/, 'the span is the pasted code');
  t.ok(p!.dimensions.reveals_answer! >= 0.5, String(p!.dimensions.reveals_answer));
  t.same([g!.reveals, other!.reveals], [null, null]);
  t.equal(body.ranking.at(-1), 0, 'the pasted solution ranks last');
  t.not(body.best.index, 0);
  const without = await app.inject({ method: 'POST', url: '/verify-turn', payload: { ...payload, task: EXAMPLE_VERIFY_REQUEST.task } });
  t.equal(without.json<{ candidates: { reveals: unknown }[] }>().candidates[0]!.reveals, null, 'without reference_code the code is not recognised');
});

t.test('POST /verify-turn with the fix known: the hint aimed at the buggy line ranks first, a wrong pointer after a remark beside the point', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const reference_code = 'def sum_to(n):\n    total = 0\n    for i in range(n + 1):\n        total += i\n    return total';
  const attempt = reference_code.replace('range(n + 1)', 'range(n)');
  const payload = {
    task: { description: 'def sum_to(n): return 0 + 1 + ... + n', reference_code },
    context: [
      { role: 'tutor', text: 'Show me what you have.' },
      { role: 'student', text: `It is one short:\n\`\`\`python\n${attempt}\n\`\`\`` },
    ],
    candidates: [
      'By the way, have you set up version control for this project yet?',
      'What values does `for i in range(n):` give i when n is 3?',
      'The bug is on line 2: `total = 0`. Can you see why?',
    ],
  };
  const res = await app.inject({ method: 'POST', url: '/verify-turn', payload });
  t.equal(res.statusCode, 200, res.body);
  const body = res.json() as { ranking: number[]; best: { index: number }; candidates: { guides: number[] | null; misdirects: number[] | null }[] };
  t.same(
    body.candidates.map((c) => [c.guides, c.misdirects]),
    [
      [null, null],
      [[3], null],
      [null, [2]],
    ],
  );
  t.same(body.ranking, [1, 0, 2], 'the guiding hint first, whatever the scores; the wrong pointer last');
  t.equal(body.best.index, 1);
});

t.test('POST /verify-turn: bad requests are 400s naming the field', async (t) => {
  const app = await testApp({ VERIFIER_DIR: BYO });
  t.teardown(() => app.close());
  const cases: [string, unknown, string][] = [
    ['no candidates', { ...request, candidates: [] }, '$.candidates'],
    ['too many candidates', { ...request, candidates: Array.from({ length: VERIFY_LIMITS.maxCandidates + 1 }, (_, i) => `c${i}`) }, '$.candidates'],
    ['an empty candidate', { ...request, candidates: ['fine', ''] }, '$.candidates[1]'],
    ['a candidate that is not text', { ...request, candidates: ['fine', 42] }, '$.candidates[1]'],
    ['an over-long candidate', { ...request, candidates: ['x'.repeat(VERIFY_LIMITS.maxTextChars + 1)] }, '$.candidates[0]'],
    ['an unknown role', { ...request, context: [{ role: 'teacher', text: 'hi' }] }, '$.context[0].role'],
    ['an over-long turn', { ...request, context: [{ role: 'student', text: 'y'.repeat(VERIFY_LIMITS.maxTextChars + 1) }] }, '$.context[0].text'],
    ['too many turns', { ...request, context: Array.from({ length: VERIFY_LIMITS.maxTurns + 1 }, () => ({ role: 'student', text: 'ok' })) }, '$.context'],
    ['no task description', { ...request, task: { solution_steps: ['a'] } }, '$.task.description'],
    ['a misspelt task field', { ...request, task: { description: 'd', solution_step: ['a'] } }, '$.task.solution_step'],
    ['a bad top_k', { ...request, options: { top_k: 0 } }, '$.options.top_k'],
    ['no context', { task: request.task, candidates: request.candidates }, '$.context'],
  ];
  for (const [name, payload, path] of cases) {
    const res = await app.inject({ method: 'POST', url: '/verify-turn', payload: payload as object });
    t.equal(res.statusCode, 400, name);
    t.ok(
      res.json().issues.some((i: { path: string }) => i.path === path),
      `${name}: ${JSON.stringify(res.json().issues)}`,
    );
  }
  // A context of any length within the limits is cut from the left, not refused.
  const long = Array.from({ length: 400 }, (_, i) => ({ role: i % 2 ? 'student' : 'tutor', text: 'the student asks a question about the loop' }));
  const res = await app.inject({ method: 'POST', url: '/verify-turn', payload: { ...request, context: long } });
  t.equal(res.statusCode, 200);
  // Candidate 2 (9 tokens) is longer than the half of the 9-token budget a long first text leaves it.
  t.same(res.json().truncated, { task: true, context: true, candidates: [2] });
});

t.test('a missing or corrupt verifier: /verify-turn answers 503 with the reason, the rest stays up', async (t) => {
  const missing = join(tmpdir(), 'no-verifier-here');
  // On a worker: the load error crosses the thread boundary to become the reason.
  const app = await testApp({ VERIFIER_DIR: missing, WORKERS: 1 });
  t.teardown(() => app.close());
  const before = await app.inject({ method: 'GET', url: '/ready' });
  t.same(before.json().capabilities.verify_turn, { ready: false, reason: 'not loaded yet (loads on first use)' });
  const res = await app.inject({ method: 'POST', url: '/verify-turn', payload: request });
  t.equal(res.statusCode, 503);
  t.match(res.json(), { error: 'Service Unavailable', message: /turn verifier is unavailable: cannot read VERIFIER_DIR\/manifest\.json: ENOENT/ });
  t.notMatch(res.body, /no-verifier-here|\/tmp\//, 'no absolute path of this machine in the answer');
  t.equal((await app.inject({ method: 'POST', url: '/verify-turn', payload: request })).statusCode, 503, 'stays unavailable');
  const ready = await app.inject({ method: 'GET', url: '/ready' });
  t.equal(ready.statusCode, 200, 'the core is still ready');
  t.match(ready.json(), { ready: true, capabilities: { verify_turn: { ready: false, reason: /ENOENT/ } } });
  const plans = await app.inject({ method: 'POST', url: '/score-plan', payload: EXAMPLE_SCORE_REQUEST });
  t.equal(plans.statusCode, 200, 'plan scoring is unaffected');
  // Bad requests are still 400s: validation runs before the model is needed.
  t.equal((await app.inject({ method: 'POST', url: '/verify-turn', payload: { ...request, candidates: [] } })).statusCode, 400);
});

t.test('20 candidates on an idle pool of two workers are verified in one piece, with the answers of the main thread', async (t) => {
  const pooled = await testApp({ WORKERS: 2 });
  const whole = await testApp({ WORKERS: 0 });
  t.teardown(() => Promise.all([pooled.close(), whole.close()]));
  const misses = (app: typeof pooled) => appMetric(app, 'tutor_encoder_cache_lookups_total{result="miss"}');
  const payload = (n: number, round: number) => ({
    task: { description: `def running_total_${round}(xs): the running totals of xs`, solution_steps: ['Keep a sum', 'Append it after each item'] },
    context: [
      { role: 'tutor', text: `What should running_total([1, 2, ${round}]) return?` },
      { role: 'student', text: 'I think [1, 3, 6], but my loop prints something else.' },
    ],
    // One candidate past the encoder's 128 tokens: its index is reported.
    candidates: Array.from({ length: n }, (_, i) =>
      i === n - 3 ? `Try this ${round}: ${'step by step '.repeat(100)}` : `Candidate ${i} of round ${round}: what does your loop add at step ${i}?`,
    ),
  });
  // A first request waits for the verifier (loading it embeds texts of its own).
  t.equal((await pooled.inject({ method: 'POST', url: '/verify-turn', payload: payload(20, 0) })).statusCode, 200);
  for (const n of [20, 10]) {
    const before = await misses(pooled);
    const a = await pooled.inject({ method: 'POST', url: '/verify-turn', payload: payload(n, n) });
    const b = await whole.inject({ method: 'POST', url: '/verify-turn', payload: payload(n, n) });
    t.equal(a.statusCode, 200, a.body.slice(0, 200));
    // The candidates, the task and the context, each encoded once: a request split across the workers would encode the last two twice.
    t.equal((await misses(pooled)) - before, n + 2, `${n} candidates: one piece`);
    const [x, y] = [a.json(), b.json()];
    t.same(x.truncated, { task: false, context: false, candidates: [n - 3] });
    t.same(x.truncated, y.truncated);
    t.same(x.scores, y.scores, `${n} candidates: the main thread's scores`);
    t.same(
      x.candidates.map((c: { index: number }) => c.index),
      y.candidates.map((c: { index: number }) => c.index),
    );
  }
});
