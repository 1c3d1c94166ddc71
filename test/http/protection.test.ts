// Load shedding from the headers (shedWhenSaturated, src/http/protection.ts): while the worker pool is
// saturated, every compute route is refused 503 before its body is read, and its connection closed so the
// body is not read either. (CORS, security headers and rate limits: access.test.ts.)
import { connect } from 'node:net';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import t from 'tap';
import { GED_BUDGET } from '../../src/contracts/evaluate-plan.js';
import { installErrorHandler } from '../../src/http/errors.js';
import { shedWhenSaturated } from '../../src/http/protection.js';
import { dialogueNextRoute } from '../../src/http/routes/dialogue-next.js';
import { evaluateRoutes } from '../../src/http/routes/evaluate.js';
import { openRlhfRoute } from '../../src/http/routes/openrlhf.js';
import { scorePlanRoute } from '../../src/http/routes/score-plan.js';
import { traceKnowledgeRoute } from '../../src/http/routes/trace-knowledge.js';
import { validatePlanRoute } from '../../src/http/routes/validate-plan.js';
import { verifyTurnRoute } from '../../src/http/routes/verify-turn.js';
import type { Service } from '../../src/service/context.js';
import { readyWhen, testApp } from '../support/app.js';
import { randomDensePlan } from '../support/plans.js';

const COMPUTE = [
  '/score-plan',
  '/openrlhf/reward',
  '/verify-turn',
  '/trace-knowledge',
  '/trace-knowledge/fit',
  '/evaluate-text',
  '/evaluate-text/corpus',
  '/evaluate-dialogue',
  '/evaluate-plan',
];

t.test('every route whose work runs on the pool is shed while it is saturated, and only those', async (t) => {
  let saturated = true;
  const pool = { status: () => ({ workers: 2, running: 2, queued: 64, max_queue: 64, saturated, utilization: 1 }), saturated: () => saturated };
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app, 1 << 20, () => []);
  shedWhenSaturated(app, pool);
  // The route plugins as the app registers them; a request that was not shed fails on its empty body, or in its handler here.
  // A deadline too: /trace-knowledge/fit takes {} as a body and starts its deadline before it fails on the stub.
  const ctx = { pool, deadlineMs: 60_000 } as unknown as Service;
  for (const route of [scorePlanRoute, openRlhfRoute, verifyTurnRoute, traceKnowledgeRoute, evaluateRoutes, validatePlanRoute]) await app.register(route(ctx));
  await app.register(dialogueNextRoute);
  t.teardown(() => app.close());
  const post = (url: string) => app.inject({ method: 'POST', url, payload: {} });
  for (const url of COMPUTE) {
    const res = await post(url);
    t.equal(res.statusCode, 503, url);
    t.match(res.json(), { code: 'overloaded', message: /all 2 workers are busy and 64 tasks wait \(MAX_QUEUE 64\); refused from the request's headers/ }, url);
    t.equal(res.headers['retry-after'], '1', `${url}: Retry-After`);
    t.equal(res.headers.connection, 'close', `${url}: the connection closed, its body unread`);
  }
  for (const url of ['/validate-plan', '/dialogue/next']) t.equal((await post(url)).statusCode, 400, `${url} runs on the main thread: not shed`);
  saturated = false;
  for (const url of COMPUTE) t.not((await post(url)).statusCode, 503, `${url} once the pool has room`);
});

t.test('a saturated pool answers 503 from the headers alone: the body is never sent', async (t) => {
  const app = await testApp({ WORKERS: 1, MAX_QUEUE: 1 });
  t.teardown(() => app.close());
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const leave = new AbortController();
  t.teardown(() => leave.abort());
  const post = (path: string, body: unknown) =>
    fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: leave.signal }).catch(() => 0);
  // Graph edit distances its search cannot finish in the largest budget: the worker is busy until the test leaves.
  void post('/evaluate-plan', {
    plans: [1, 2, 3, 4].map((seed) => ({ plan: randomDensePlan(15, seed) })),
    gold: randomDensePlan(15, 9),
    options: { ged_budget: GED_BUDGET.max },
  });
  await readyWhen(base, (p) => p.running === 1);
  // A task that is not long waits for the worker (a long one would wait in its lane, outside the queue).
  void post('/trace-knowledge', { kcs: [{ id: 'loop', text: 'loops over a list', kind: 'step' }], context: [{ role: 'student', text: 'a for loop' }] });
  t.match(await readyWhen(base, (p) => p.queued === 1), { pool: { saturated: true } });

  const answer = await new Promise<string>((resolve) => {
    const socket = connect(Number(new URL(base).port), '127.0.0.1', () =>
      socket.write('POST /score-plan HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n'),
    );
    let received = '';
    socket.on('data', (d) => {
      received += d.toString();
    });
    socket.on('close', () => resolve(received));
  });
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  t.match(head, /^HTTP\/1\.1 503 /);
  t.match(head, /connection: close/i, 'and the connection closed, without waiting for the 10 MB declared');
  t.match(head, /retry-after: 1/i);
  t.match(JSON.parse(body), { code: 'overloaded', message: /MAX_QUEUE 1\); refused from the request's headers, its body unread/ });
});
