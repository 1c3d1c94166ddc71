// `npm run screenshots`: takes the dashboard screenshots again with the browser tests (SCREENSHOT_DIR set),
// then records what they were taken from (scripts/screenshot-manifest.ts) and dates the docs' captions.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CAPTIONED_DOCS, IMAGES_DIR, imageHashes, MANIFEST, ROOT, type ScreenshotManifest, sourcesHash, withCaption } from './screenshot-manifest.js';

const tests = spawnSync(
  'npx',
  ['tap', '--disable-coverage', 'test/browser/dashboard-runs.browser.ts', 'test/browser/dashboard-tools.browser.ts', 'test/browser/dashboard-plan.browser.ts'],
  {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, SCREENSHOT_DIR: IMAGES_DIR },
  },
);
if (tests.status !== 0) {
  console.error('the browser tests failed: the screenshots are not recorded');
  process.exit(1);
}
const manifest: ScreenshotManifest = { taken: new Date().toISOString().slice(0, 10), sources_sha256: sourcesHash(), images: imageHashes() };
writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
for (const doc of CAPTIONED_DOCS) {
  const path = join(ROOT, doc);
  const text = withCaption(readFileSync(path, 'utf8'), manifest);
  if (text === undefined) throw new Error(`${doc} has no <!-- screenshots:start --> … <!-- screenshots:end --> block`);
  writeFileSync(path, text);
}
console.log(`wrote ${MANIFEST} and the captions of ${CAPTIONED_DOCS.join(', ')}`);
