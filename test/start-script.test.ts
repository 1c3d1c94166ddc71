// package.json's start command as npm runs it (`sh -c <script>`): a SIGTERM to what npm started reaches the
// service, which drains and exits, instead of killing the shell and leaving the service running alone.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import t from 'tap';
import { ROOT } from './support/children.js';
import { tempStateDir } from './support/app.js';

const start = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: { start: string } }).scripts.start;

t.test('SIGTERM to the start command stops the service', async (t) => {
  const env = { ...process.env, PORT: '0', HOST: '127.0.0.1', WORKERS: '1', STATE_DIR: tempStateDir() };
  // Through `env -u`, as plainNode does: tap adds its hooks to the environment of every process the test
  // starts, and the built service would otherwise report its coverage as a second copy of the sources'.
  // A process group of its own: whatever is left of it is killed at the end, a service left alone included.
  const child = spawn('env', ['-u', 'NODE_OPTIONS', '-u', 'NODE_V8_COVERAGE', 'sh', '-c', start], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  t.teardown(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group is gone: nothing was left running
    }
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const base = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const msg = String((JSON.parse(line) as { msg?: string }).msg ?? '');
      if (msg.startsWith('Server listening at ')) resolve(msg.slice('Server listening at '.length));
    });
    void exited.then((code) => reject(new Error(`the start command exited with ${code} before listening`)));
  });
  t.equal((await fetch(`${base}/health`)).status, 200);
  process.kill(child.pid!, 'SIGTERM');
  t.equal(await exited, 0, 'what npm started drains and exits 0');
  // Nothing answers any more: the service exited with it.
  const answered = await fetch(`${base}/health`).then(
    () => true,
    () => false,
  );
  t.notOk(answered, 'the port no longer answers');
});
