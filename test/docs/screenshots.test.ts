// The dashboard screenshots in the docs are what `npm run screenshots` took from the current dashboard: the
// images, the files that decide what they show, and the captions' date all match docs/images/screenshots.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { CAPTIONED_DOCS, imageHashes, readManifest, ROOT, sourcesHash, withCaption } from '../../scripts/screenshot-manifest.js';

const manifest = readManifest();

t.same(imageHashes(), manifest.images, 'the images are those the manifest recorded (replace them with `npm run screenshots`)');
t.equal(
  sourcesHash(),
  manifest.sources_sha256,
  'web/dashboard, src/contracts and src/grpo are as they were when the screenshots were taken: run `npm run screenshots`',
);
for (const doc of CAPTIONED_DOCS) {
  const text = readFileSync(join(ROOT, doc), 'utf8');
  t.equal(text, withCaption(text, manifest), `${doc}: its caption gives the screenshots' date`);
}
