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
