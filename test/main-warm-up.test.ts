import t from 'tap';
import { tempStateDir } from './support/app.js';
import { startService } from './support/service.js';

// The first /evaluate-dialogue with a reference used to load WordNet in its worker; the process now loads
// it in every worker once the port is open, before any request asks for it.
t.test('service process: WordNet warms up at start, without a request', async (t) => {
  const svc = await startService({ STATE_DIR: tempStateDir() });
  t.teardown(() => svc.child.kill('SIGKILL'));
  t.match(await svc.waitForLine((l) => l.capability === 'meteor'), { msg: 'capability ready' });
  const ready = await fetch(`${svc.base}/ready`);
  t.equal(ready.status, 200);
  t.match(await ready.json(), { ready: true, capabilities: { meteor: { ready: true, reason: 'ok' } } });
  const metrics = await (await fetch(`${svc.base}/metrics`)).text();
  t.match(metrics, /^tutor_capability_ready\{capability="meteor"\} 1$/m);
  t.notMatch(metrics, /^http_requests_total\{[^}]*route="\/evaluate/m, 'no evaluation request was sent');
});

// The ONNX models load in every worker when a request first needs them, or at start when READY_REQUIRES names them.
t.test('service process: a model READY_REQUIRES names runs its first inference at start, in every worker, without a request', async (t) => {
  const svc = await startService({ STATE_DIR: tempStateDir(), WORKERS: '2', READY_REQUIRES: 'trace_knowledge,verify_turn' });
  t.teardown(() => svc.child.kill('SIGKILL'));
  for (const capability of ['trace_knowledge', 'verify_turn']) {
    t.match(await svc.waitForLine((l) => l.capability === capability), { msg: 'capability ready' }, capability);
  }
  const metrics = await (await fetch(`${svc.base}/metrics`)).text();
  const misses = Number(/^tutor_encoder_cache_lookups_total\{result="miss"\} (\d+)$/m.exec(metrics)?.[1]);
  // Each worker's encoder warm-up embeds one text, and the verifier's its own few: every worker embedded.
  t.ok(misses >= 2, `texts embedded at start: ${misses}`);
  t.notMatch(metrics, /^http_requests_total\{[^}]*route="\/(verify-turn|trace-knowledge)/m, 'no request was sent');
});

t.test('service process: a model nothing requires is not loaded at start; the first request that needs it loads it', async (t) => {
  const svc = await startService({ STATE_DIR: tempStateDir(), WORKERS: '2' });
  t.teardown(() => svc.child.kill('SIGKILL'));
  for (const capability of ['trace_knowledge', 'verify_turn']) {
    t.match(await svc.waitForLine((l) => l.capability === capability), { msg: 'capability loads on first use' }, capability);
  }
  await svc.waitForLine((l) => l.capability === 'meteor');
  const before = await (await fetch(`${svc.base}/metrics`)).text();
  t.match(before, /^tutor_encoder_cache_lookups_total\{result="miss"\} 0$/m, 'nothing embedded: no encoder session');
  t.match(before, /^tutor_capability_ready\{capability="verify_turn"\} 0$/m);
  t.match(await (await fetch(`${svc.base}/ready`)).json(), {
    ready: true,
    capabilities: { verify_turn: { ready: false, reason: 'not loaded yet (loads on first use)' } },
  });
  const verify = await fetch(`${svc.base}/verify-turn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ task: { description: 'Add 2 and 3.' }, context: [], candidates: ['What is 2 + 3?', 'It is 5.'] }),
  });
  t.equal(verify.status, 200);
  t.match(await (await fetch(`${svc.base}/ready`)).json(), { capabilities: { verify_turn: { ready: true, reason: 'ok' }, trace_knowledge: { ready: false } } });
});
