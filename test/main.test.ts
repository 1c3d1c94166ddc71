import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import t from 'tap';
import { EXAMPLE_SCORE_REQUEST } from '../src/contracts/examples.js';

// The real entry point in a child process: JSON logs, one summary line per scoring request, readiness,
// and a SIGTERM that lets an in-flight request finish.
t.test('service process: logs, readiness and graceful shutdown', async (t) => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: new URL('..', import.meta.url),
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.teardown(() => child.kill('SIGKILL'));
  const lines: Record<string, unknown>[] = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(JSON.parse(line) as Record<string, unknown>);
    waiters.splice(0).forEach((w) => w());
  });
  const waitFor = async (pred: (l: Record<string, unknown>) => boolean) => {
    for (;;) {
      const hit = lines.find(pred);
      if (hit) return hit;
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));

  const started = await waitFor((l) => l.msg === 'service started');
  t.match(started, { readiness: { ready: true, reason: 'ok' } });
  const listening = await waitFor((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening at http://127.0.0.1:'));
  const base = String(listening.msg).replace('Server listening at ', '');

  t.equal((await fetch(`${base}/ready`)).status, 200);
  const scored = await fetch(`${base}/score-plan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(EXAMPLE_SCORE_REQUEST) });
  t.equal(scored.status, 200);
  const summary = await waitFor((l) => l.msg === 'scored');
  t.match(summary, { method: 'POST', url: '/score-plan', status: 200, groups: 1, plans: 3, gated: 2, latency_ms: Number, mean_raw: { struct: Number, pers: Number, ped: Number } });
  t.equal(lines.filter((l) => l.url === '/score-plan').length, 1, 'exactly one log line for the scoring request');

  // Start a request, deliver half its body, then SIGTERM: the request must still be answered.
  const body = JSON.stringify(EXAMPLE_SCORE_REQUEST);
  const answered = new Promise<number>((resolve, reject) => {
    const req = request(`${base}/score-plan`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.write(body.slice(0, 100));
    setTimeout(() => {
      child.kill('SIGTERM');
      setTimeout(() => req.end(body.slice(100)), 200);
    }, 200);
  });
  t.equal(await answered, 200, 'in-flight request completed during shutdown');
  t.equal(await exited, 0, 'clean exit');
  t.ok(lines.some((l) => l.msg === 'stopped'));
});
