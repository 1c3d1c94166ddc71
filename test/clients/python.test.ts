import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { tempStateDir } from '../support/app.js';
import { startService } from '../support/service.js';
import { tempDir } from '../support/temp.js';

const TESTS = new URL('../../clients/python/tests/', import.meta.url);
/** The modules that need a service with API keys; every other test_*.py runs against one without. */
const KEYED = ['test_keys.py'];
const UNKEYED = readdirSync(TESTS)
  .filter((f) => /^test_\w+\.py$/.test(f) && !KEYED.includes(f))
  .sort();

/** Runs exactly `modules` with unittest; the test count expected is their `def test_` methods. */
async function runPython(modules: string[], env: Record<string, string>) {
  // Nothing of the caller's TUTOR_REWARD_* (a key, a run) leaks into the tests: they get only `env`.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TUTOR_REWARD_')));
  const result = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const py = spawn('python3', ['-m', 'unittest', '-v', ...modules.map((m) => m.replace(/\.py$/, ''))], {
      cwd: TESTS,
      env: { ...base, ...env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    let output = '';
    py.stdout.on('data', (d: Buffer) => (output += d.toString()));
    py.stderr.on('data', (d: Buffer) => (output += d.toString()));
    py.on('error', reject);
    py.on('close', (code) => resolve({ code, output }));
  });
  const ran = Number(/^Ran (\d+) tests? in /m.exec(result.output)?.[1] ?? 0);
  const expected = modules.reduce((n, m) => n + (readFileSync(new URL(m, TESTS), 'utf8').match(/^ +def test_\w+\(/gm)?.length ?? 0), 0);
  return { ...result, ran, expected };
}

// The Python client (clients/python, standard library only) against the live service: TRL reward function,
// verl adapters, and an independent recomputation of the adaptive weights from the run's CSV history.
t.test('Python client tests pass against a live service', async (t) => {
  t.ok(UNKEYED.includes('test_trainers.py') && UNKEYED.includes('test_trainer_calls.py'), UNKEYED.join(', '));
  const svc = await startService({ STATE_DIR: tempStateDir() });
  t.teardown(() => svc.child.kill('SIGKILL'));
  const result = await runPython(UNKEYED, { TUTOR_REWARD_URL: svc.base });
  t.equal(result.code, 0, result.output);
  t.ok(result.expected >= 14, `${result.expected} test methods in ${UNKEYED.join(', ')}`);
  t.equal(result.ran, result.expected, `ran ${result.ran} Python tests`);
  // `OK` alone: not `OK (skipped=…)`, no test may skip itself.
  t.match(result.output, /^OK$/m);
});

// The same client against a service with API keys of each scope, fresh for this run.
t.test('Python client tests pass against a live service with API keys', async (t) => {
  const keys = { score: randomBytes(24).toString('hex'), read: randomBytes(24).toString('hex'), admin: randomBytes(24).toString('hex') };
  const svc = await startService({
    STATE_DIR: tempStateDir(),
    API_KEYS: Object.entries(keys)
      .map(([scope, key]) => `${scope}:${key}`)
      .join(','),
  });
  t.teardown(() => svc.child.kill('SIGKILL'));
  const result = await runPython(KEYED, {
    TUTOR_REWARD_URL: svc.base,
    TUTOR_REWARD_TEST_SCORE_KEY: keys.score,
    TUTOR_REWARD_TEST_READ_KEY: keys.read,
    TUTOR_REWARD_TEST_ADMIN_KEY: keys.admin,
  });
  t.equal(result.code, 0, result.output);
  t.ok(result.expected >= 14, `${result.expected} test methods in ${KEYED.join(', ')}`);
  t.equal(result.ran, result.expected, `ran ${result.ran} Python tests`);
  t.match(result.output, /^OK$/m);
  const log = JSON.stringify(svc.lines);
  t.ok(
    Object.values(keys).every((key) => !log.includes(key)),
    'no key in the service log',
  );
  // The log has a line per request, the refused ones too: the check above looked where a key could have gone.
  t.ok(
    [401, 403].every((status) => svc.lines.some((l) => l.msg === 'request' && l.status === status)),
    'the 401 and 403 answers were logged',
  );
});

t.test('the client installs with pip (no third-party dependencies) and carries the service version', async (t) => {
  const { cpSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { spawnSync } = await import('node:child_process');
  const repo = new URL('../..', import.meta.url).pathname;
  const target = tempDir('pip-client-');
  // pip builds in the source tree: a copy keeps build/ and *.egg-info out of the repository.
  const source = tempDir('pip-source-');
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
