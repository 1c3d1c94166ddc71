// Every file of the repository that README.md or docs/*.md names (`src/…`, `bench/…`, `test/…`,
// `scripts/…`, `training/…`) exists: a moved file takes its mentions with it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import t from 'tap';

const root = new URL('../', import.meta.url);
const docs = [
  'README.md',
  ...readdirSync(new URL('docs/', root))
    .filter((n) => n.endsWith('.md'))
    .map((n) => `docs/${n}`),
];
// A path as the docs write it, less the sentence's full stop; one with `*` or `<…>` is a pattern
// (`test/browser/dashboard-*.browser.ts`, `bench/results/<name>.json`).
const PATH = /(?<![\w./-])(?:src|bench|test|scripts|training)\/[\w./*<>-]+/g;

t.test('the files the docs name exist', async (t) => {
  let named = 0;
  for (const doc of docs) {
    for (const [match] of readFileSync(new URL(doc, root), 'utf8').matchAll(PATH)) {
      if (/[*<]/.test(match)) continue;
      const path = match.replace(/[.-]+$/, '');
      named++;
      if (!existsSync(new URL(path, root))) t.fail(`${doc} names ${path}, which does not exist`);
    }
  }
  t.ok(named > 20, `${named} paths checked`);
});
