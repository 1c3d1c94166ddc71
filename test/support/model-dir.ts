import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp.js';

/** A temporary copy of a model directory with its manifest.json edited and, optionally, files replaced. */
export function copyWithManifest(source: string, edit: (manifest: Record<string, unknown>) => void, files: Record<string, Buffer | string> = {}): string {
  const dir = tempDir('model-dir-');
  cpSync(source, dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  edit(manifest);
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}
