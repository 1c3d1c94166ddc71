import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t from 'tap';
import { ROOT } from './children.js';
import { loadScaled } from './load.js';

// Starting a tap process costs about 2 s of CPU before a test runs (tsx, tap's module hooks on a second
// thread, coverage), more than most test files then take. The files that need no process of their own are
// listed once, in package.json's `tap.exclude` (so tap does not start them), and test/_shared/<part>.test.ts
// imports those of its part, one after another, in one process. A file still runs alone with
// `npx tap --disable-coverage <file>` (tap runs a file named on its command line even when excluded).

/** What one test file may take on a quiet machine: tap's `timeout` (package.json). */
const FILE_TIMEOUT_MS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { tap: { timeout: number } }).tap.timeout * 1000;

/** What one shared file may take now: FILE_TIMEOUT_MS, load-scaled like the files in a process of their own. */
const fileTimeoutMs = (): number => loadScaled(FILE_TIMEOUT_MS);

/** The parts, by path prefix: a shared file belongs to the first part that claims it; `rest` takes the others. */
const PARTS = { fuzz: ['test/http/fuzz'], http: ['test/http/'], runs: ['test/runs/'], metrics: ['test/metrics/', 'test/text/'], rest: [''] } as const;

/** The test files under `tap.exclude`'s `test/…` patterns (a file, or a folder as `dir/**`), sorted. */
function sharedFiles(): string[] {
  const patterns = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { tap: { exclude: string[] } }).tap.exclude.filter((p) =>
    p.startsWith('test/'),
  );
  return patterns
    .flatMap((p) => {
      if (!p.endsWith('/**')) return [p];
      const dir = p.slice(0, -3);
      return (readdirSync(join(ROOT, dir), { recursive: true }) as string[]).filter((f) => f.endsWith('.test.ts')).map((f) => `${dir}/${f}`);
    })
    .sort();
}

/**
 * Imports the shared test files of the part the entry at `entryUrl` is named for, one after another; each adds its tests to this process's root.
 * A file's tests finish before the next file is loaded: a file's top-level work (fixtures, an app) would
 * otherwise run in the middle of the previous file's tests, and some of those time a stub server. The
 * import runs inside a subtest because tap ends a root that has a teardown once it is idle, and a file's
 * top-level awaits (an app listening) leave it idle.
 */
export async function runShared(entryUrl: string): Promise<void> {
  const part = basename(fileURLToPath(entryUrl), '.test.ts');
  if (!Object.hasOwn(PARTS, part)) throw new Error(`${entryUrl}: no shared part ${part} in test/support/shared-process.ts`);
  const partOf = (file: string) => (Object.keys(PARTS) as (keyof typeof PARTS)[]).find((p) => PARTS[p].some((prefix) => file.startsWith(prefix)));
  const files = sharedFiles().filter((f) => partOf(f) === part);
  for (const file of files) {
    // tap's timeout is one file's, and this process runs many: each file gets its own from its start, so a
    // file that hangs is caught as soon as if it ran alone, and slow files before it take nothing from it.
    t.setTimeout(fileTimeoutMs());
    await t.test(`${file}: loaded`, async (t) => {
      await import(pathToFileURL(join(ROOT, file)).href);
      t.pass();
    });
    // Queued after the file's tests, so it ends after them.
    await t.test(`${file}: its tests ran`, async (t) => t.pass());
  }
  t.ok(files.length > 0, `${files.length} files: ${files.join(', ')}`);
}
