// Counts that change with every commit (how many assertions, what coverage measured) go stale when typed
// into prose: the docs point at where the suite prints them instead.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../support/children.js';

const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const TYPED = [
  { what: 'a count of assertions or tests', pattern: /\b\d[\d,]* (?:assertions|tests? (?:pass|passed|in all))\b/gi },
  { what: 'a measured coverage figure', pattern: /\b(?:coverage|statements|branches|functions|lines)\b[^.\n]{0,40}\bmeasured\b[^.\n]{0,20}\d+(?:\.\d+)? ?%/gi },
];

for (const doc of DOCS) {
  const text = readFileSync(join(ROOT, doc), 'utf8').replace(/\n/g, ' ');
  for (const { what, pattern } of TYPED)
    t.same(
      [...text.matchAll(pattern)].map((m) => m[0]),
      [],
      `${doc}: ${what} is not typed in`,
    );
}
