import t from 'tap';
import { loadConfig, readyRequires } from '../../src/config.js';
import { loadScaled } from '../support/load.js';
import { testApp } from '../support/app.js';
import { InferenceStandIn, remoteVerifierDir } from '../support/inference-server.js';

const request = {
  task: { description: 'def running_total(xs): return the running totals', solution_steps: ['Keep a sum', 'Append it'] },
  context: [{ role: 'student', text: 'The same list?' }],
  candidates: ['No, the answer is [1, 3, 6].', 'Close! What is the total after adding 1 and 2?', 'Try again.'],
};
const model = (text: string): number => (text.includes('What is the total') ? 0.9 : text.includes('answer is') ? 0.05 : 0.4);

for (const api of ['vllm', 'tei'] as const) {
  t.test(`POST /verify-turn with a remote verifier (${api}): one call, scores and ranking; /ready follows the server`, async (t) => {
    const server = await new InferenceStandIn(api, (input) => model(input[input.length - 1]!)).listen();
    t.teardown(() => server.close());
    const app = await testApp({ VERIFIER_DIR: remoteVerifierDir(server, api === 'tei' ? { label: 'good' } : {}) });
    t.teardown(() => app.close());
    const res = await app.inject({ method: 'POST', url: '/verify-turn', payload: request });
    t.equal(res.statusCode, 200);
    const body = res.json();
    t.same(body.model, { name: 'traver-verifier', version: 'test-1', kind: 'remote' });
    t.same(body.scores, [0.05, 0.9, 0.4]);
    t.same(body.ranking, [1, 2, 0]);
    t.equal(body.best.index, 1);
    t.equal(server.calls.length, 1, 'the three candidates in one call');

    t.same((await app.inject({ method: 'GET', url: '/ready' })).json().capabilities.verify_turn, { ready: true, reason: 'ok' });
    await server.close();
    const ready = await app.inject({ method: 'GET', url: '/ready' });
    t.equal(ready.statusCode, 200, 'the core stays ready');
    t.equal(ready.json().capabilities.verify_turn.ready, false);
    t.match(ready.json().capabilities.verify_turn.reason, /verifier server .* cannot be reached/);
    const down = await app.inject({ method: 'POST', url: '/verify-turn', payload: request });
    t.equal(down.statusCode, 503);
    t.equal(down.json().code, 'verifier_unavailable');
    t.equal(down.headers['retry-after'], '1');
  });
}

t.test('POST /verify-turn with a remote verifier: garbage → 503, a stall → 504 at the deadline (on a worker)', async (t) => {
  const server = await new InferenceStandIn('vllm', () => 0.5).listen();
  t.teardown(() => server.close());
  const app = await testApp({ VERIFIER_DIR: remoteVerifierDir(server, { timeout_ms: 60_000 }), WORKERS: 1 });
  t.teardown(() => app.close());

  server.answer = () => ({ json: { object: 'error', message: 'model not found' } });
  const garbage = await app.inject({ method: 'POST', url: '/verify-turn', payload: request });
  t.equal(garbage.statusCode, 503);
  t.equal(garbage.json().code, 'verifier_unavailable');
  t.match(garbage.json().message, /one "data" item per candidate/);

  server.answer = () => 'stall';
  const deadline = loadScaled(500);
  const start = performance.now();
  const stalled = await app.inject({ method: 'POST', url: '/verify-turn', payload: { ...request, options: { deadline_ms: deadline } } });
  const took = performance.now() - start;
  t.equal(stalled.statusCode, 504);
  t.equal(stalled.json().code, 'deadline_exceeded');
  t.ok(took < deadline + loadScaled(2000), `answered at the deadline (${Math.round(took)} ms)`);
  // The worker saw the request abandoned and closed its call, so it is free for the next request.
  await server.until(() => server.abandoned === 1);
  server.answer = (call) => server.documented(call);
  const after = await app.inject({ method: 'POST', url: '/verify-turn', payload: request });
  t.equal(after.statusCode, 200);
  t.same(after.json().scores, [0.5, 0.5, 0.5]);
});

t.test('READY_REQUIRES=verify_turn: /ready is 503 while the verifier server is down, 200 once it answers', async (t) => {
  const server = await new InferenceStandIn('vllm', (input) => model(input[input.length - 1]!)).listen();
  t.teardown(() => server.close());
  const app = await testApp({ VERIFIER_DIR: remoteVerifierDir(server), READY_REQUIRES: 'verify_turn' });
  t.teardown(() => app.close());
  t.equal((await app.inject({ method: 'POST', url: '/verify-turn', payload: request })).statusCode, 200);
  t.equal((await app.inject({ method: 'GET', url: '/ready' })).statusCode, 200);
  const port = Number(new URL(server.url).port);
  await server.close();
  const down = await app.inject({ method: 'GET', url: '/ready' });
  t.equal(down.statusCode, 503);
  t.match(down.json().reason, /verify_turn \(READY_REQUIRES\) is not ready: the verifier server .* cannot be reached/);
  await server.listen(port);
  t.equal((await app.inject({ method: 'GET', url: '/ready' })).statusCode, 200, 'back without a restart');
});

t.test('READY_REQUIRES names only capabilities /ready reports', async (t) => {
  t.throws(() => loadConfig({ READY_REQUIRES: 'verify_turn,gpu' }), /READY_REQUIRES: comma-separated capabilities among/);
  t.same(readyRequires(loadConfig({ READY_REQUIRES: ' verify_turn , meteor' })), ['verify_turn', 'meteor']);
});
