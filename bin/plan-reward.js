#!/usr/bin/env node
// `npx plan-reward`: runs the built CLI (dist/, from `npm run build`). A fresh checkout has no dist/, so
// with the dev dependencies installed (`npm ci`) it runs the TypeScript source through tsx instead;
// otherwise it says how to build. Committed as plain JS because dist/ is not, and tsc output is not executable.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const built = new URL('dist/cli/plan-reward.js', root);

if (existsSync(fileURLToPath(built))) {
  await import(built.href);
} else {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    process.stderr.write('plan-reward: dist/cli/plan-reward.js not found; run `npm run build` first\n');
    process.exit(1);
  }
  register();
  await import(new URL('src/cli/plan-reward.ts', root).href);
}
