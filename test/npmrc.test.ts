// The project's .npmrc makes npm refuse to install on a Node below package.json's engines, at once and
// naming the version needed, instead of installing with warnings and failing at the first start. Checked
// with the real npm on a copy whose engines ask for a Node that does not exist yet (the one running is
// then "too old"), against the same copy without the project's .npmrc.
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from './support/children.js';
import { tempDir } from './support/temp.js';

function npmCiDryRun(withNpmrc: boolean) {
  const dir = tempDir('npmrc-');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  pkg.engines.node = '>=99';
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg));
  copyFileSync(join(ROOT, 'package-lock.json'), join(dir, 'package-lock.json'));
  if (withNpmrc) copyFileSync(join(ROOT, '.npmrc'), join(dir, '.npmrc'));
  // Not the settings of the npm that runs the tests (npm passes its own on as npm_config_* variables).
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_/i.test(k)));
  const run = spawnSync('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, env, encoding: 'utf8' });
  rmSync(dir, { recursive: true, force: true });
  return run;
}

t.test('npm ci on a Node below the engines field: refused with the project .npmrc, only warned without', async (t) => {
  const refused = npmCiDryRun(true);
  t.not(refused.status, 0, 'npm ci fails');
  t.match(refused.stderr, /EBADENGINE/);
  t.match(refused.stderr, /Required: \{"node":">=99"\}/, 'naming the version needed');
  const warned = npmCiDryRun(false);
  t.equal(warned.status, 0, `without it npm installs anyway: ${warned.stderr.slice(0, 300)}`);
});
