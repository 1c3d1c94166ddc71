import { spawn } from 'node:child_process';
import t from 'tap';
import { tempStateDir } from '../support/app.js';
import { startService } from '../support/service.js';

// The Python client (clients/python, standard library only) against the live service: TRL reward function,
// verl adapters, and an independent recomputation of the adaptive weights from the run's CSV history.
t.test('Python client tests pass against a live service', async (t) => {
  const svc = await startService({ STATE_DIR: tempStateDir() });
  t.teardown(() => svc.child.kill('SIGKILL'));
  const result = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const py = spawn('python3', ['-m', 'unittest', 'discover', '-s', 'clients/python/tests', '-v'], {
      cwd: new URL('../..', import.meta.url),
      env: { ...process.env, TUTOR_REWARD_URL: svc.base, PYTHONDONTWRITEBYTECODE: '1' },
    });
    let output = '';
    py.stdout.on('data', (d: Buffer) => (output += d.toString()));
    py.stderr.on('data', (d: Buffer) => (output += d.toString()));
    py.on('error', reject);
    py.on('close', (code) => resolve({ code, output }));
  });
  const ran = Number(/Ran (\d+) tests?/.exec(result.output)?.[1] ?? 0);
  t.equal(result.code, 0, result.output);
  t.ok(ran >= 6, `ran ${ran} Python tests`);
  t.match(result.output, /\nOK\b/);
});
