import { readFile } from 'node:fs/promises';
import t from 'tap';
import { VERSIONS } from '../src/scoring/versions.js';

t.test('CHANGELOG.md names the package version and every version the responses report', async (t) => {
  const changelog = await readFile(new URL('../CHANGELOG.md', import.meta.url), 'utf8');
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  t.match(changelog, new RegExp(`^## ${pkg.version.replaceAll('.', '\\.')} `, 'm'), `a section for ${pkg.version}`);
  for (const [name, version] of Object.entries(VERSIONS)) t.ok(changelog.includes(`\`${version}\``), `${name}: ${version}`);
});
