// Renders docs/configuration.md from ConfigSchema (src/config.ts): `npm run docs:config`. A test fails
// when the committed file drifts from what this renders.
import { relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeFile } from 'node:fs/promises';
import { ConfigSchema } from '../src/config.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = new URL('../docs/configuration.md', import.meta.url);

const SIZES: [number, string][] = [
  [1024 * 1024, 'MiB'],
  [1024, 'KiB'],
];

/** A setting's default as the table shows it: machine-dependent values as words, paths relative to the repository. */
function renderDefault(key: string, value: unknown): string {
  if (key === 'WORKERS') return 'the number of cores';
  if (value === undefined) return 'unset';
  if (typeof value === 'string' && value.startsWith(root)) return `\`${relative(root, value)}\``;
  if (typeof value === 'number' && key.endsWith('_BYTES')) {
    const size = SIZES.find(([unit]) => value % unit === 0);
    if (size) return `\`${value}\` (${value / size[0]} ${size[1]})`;
  }
  return `\`${String(value)}\``;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function renderConfigDoc(): string {
  const defaults: Record<string, unknown> = ConfigSchema.parse({});
  const rows = Object.entries(ConfigSchema.shape).map(
    ([key, schema]) => `| \`${key}\` | ${cell(renderDefault(key, defaults[key]))} | ${cell(schema.description ?? '')} |`,
  );
  return [
    '# Configuration',
    '',
    '<!-- Generated from src/config.ts by `npm run docs:config`; edit the .describe() texts there, not this file. -->',
    '',
    'Every setting is an environment variable; every one has a working default, so `npm start` needs none.',
    '',
    '| setting | default | meaning |',
    '| --- | --- | --- |',
    ...rows,
    '',
    'An invalid value stops the service at start with a message naming the variable.',
    '',
  ].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await writeFile(target, renderConfigDoc());
  console.log(`wrote ${fileURLToPath(target)}`);
}
