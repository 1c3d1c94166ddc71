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

t.test('the client installs with pip (no third-party dependencies) and carries the service version', async (t) => {
  const { cpSync, mkdtempSync, readFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { spawnSync } = await import('node:child_process');
  const repo = new URL('../..', import.meta.url).pathname;
  const target = mkdtempSync(join(tmpdir(), 'pip-client-'));
  // pip builds in the source tree: a copy keeps build/ and *.egg-info out of the repository.
  const source = mkdtempSync(join(tmpdir(), 'pip-source-'));
  cpSync(join(repo, 'clients/python'), source, { recursive: true, filter: (p) => !p.includes('__pycache__') });
  const pip = spawnSync('python3', ['-m', 'pip', 'install', '--quiet', '--no-deps', '--target', target, source], { encoding: 'utf8' });
  t.equal(pip.status, 0, pip.stderr);
  const version = spawnSync('python3', ['-c', 'import tutor_reward, sys; print(tutor_reward.__version__); print(tutor_reward.__file__)'], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: target, PYTHONDONTWRITEBYTECODE: '1' },
    cwd: target,
  });
  const [installed, file] = version.stdout.trim().split('\n');
  const service = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string }).version;
  t.equal(installed, service, 'tutor_reward.__version__ is the service version');
  t.ok(file?.startsWith(target), `imported from the installed copy (${file})`);
  t.match(readFileSync(join(repo, 'clients/python/pyproject.toml'), 'utf8'), new RegExp(`^version = "${service.replace(/\./g, '\\.')}"$`, 'm'));
  t.match(readFileSync(join(repo, 'clients/python/pyproject.toml'), 'utf8'), /^dependencies = \[\]$/m);
});
