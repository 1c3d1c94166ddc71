import t from 'tap';
import { tempStateDir } from './support/app.js';
import { startService } from './support/service.js';

// The first /evaluate-dialogue with a reference used to load WordNet in its worker; the process now loads
// it, with the models, in every worker once the port is open, before any request asks for it.
t.test('service process: WordNet warms up at start, with the models, without a request', async (t) => {
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

t.test('service process: the models run their first inference at start, in every worker, without a request', async (t) => {
  const svc = await startService({ STATE_DIR: tempStateDir(), WORKERS: '2' });
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
