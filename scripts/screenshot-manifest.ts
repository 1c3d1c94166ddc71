// What the committed dashboard screenshots were taken from: the date, a hash of the files that decide what
// they show (the dashboard's own code, the API contracts it draws and the weight update it plots), and each
// image's hash. `npm run screenshots` writes it; test/docs/screenshots.test.ts fails when the images or those
// files changed without the screenshots being taken again, or a caption gives another date.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const IMAGES_DIR = join(ROOT, 'docs/images');
export const MANIFEST = join(IMAGES_DIR, 'screenshots.json');
export const SOURCES = ['web/dashboard', 'src/contracts', 'src/grpo'];
/** The docs that show the screenshots, each with a caption block that dates them. */
export const CAPTIONED_DOCS = ['README.md', 'docs/dashboard.md'];
const START = '<!-- screenshots:start -->';
const END = '<!-- screenshots:end -->';

export interface ScreenshotManifest {
  taken: string;
  sources_sha256: string;
  images: Record<string, string>;
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    .sort();
}

/** One hash over the path and content of every file under SOURCES. */
export function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const file of SOURCES.flatMap(filesUnder)) hash.update(`${file}\0${sha256(readFileSync(join(ROOT, file)))}\n`);
  return hash.digest('hex');
}

export const screenshotFiles = () =>
  readdirSync(IMAGES_DIR)
    .filter((n) => /^dashboard-.*\.png$/.test(n))
    .sort();

export const imageHashes = () => Object.fromEntries(screenshotFiles().map((n) => [n, sha256(readFileSync(join(IMAGES_DIR, n)))]));

export const readManifest = (): ScreenshotManifest => JSON.parse(readFileSync(MANIFEST, 'utf8'));

export const caption = (m: ScreenshotManifest) => `Screenshots taken ${m.taken} by \`npm run screenshots\`.`;

/** `text` with its caption block saying `m`'s date; undefined when it has no block. */
export function withCaption(text: string, m: ScreenshotManifest): string | undefined {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) return undefined;
  // The block's indentation (a list item's) carries over to the caption.
  const indent = /[ \t]*$/.exec(text.slice(0, start))?.[0] ?? '';
  return `${text.slice(0, start + START.length)}\n${indent}${caption(m)}\n${indent}${text.slice(end)}`;
}
