// Renders the error table of docs/operations.md from ERRORS (src/contracts/errors.ts): `npm run docs:errors`.
// A test fails when the committed table drifts from what this renders.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ERRORS } from '../src/contracts/errors.js';

const target = new URL('../docs/operations.md', import.meta.url);
const START = '<!-- error-table:start (generated from src/contracts/errors.ts by `npm run docs:errors`) -->';
const END = '<!-- error-table:end -->';

const cell = (text: string) => text.replaceAll('|', '\\|');

export function renderErrorTable(): string {
  const rows = Object.entries(ERRORS)
    .sort(([, a], [, b]) => a.status - b.status)
    .map(([code, row]) => `| ${row.status} | \`${code}\`${row.retryable ? ' (with `Retry-After`)' : ''} | ${cell(row.meaning)} |`);
  return [START, '| status | code | when |', '| --- | --- | --- |', ...rows, END].join('\n');
}

/** The document with its table replaced by `table`. */
export function withErrorTable(doc: string, table: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/operations.md has no ${START} … ${END} block`);
  return doc.slice(0, start) + table + doc.slice(end + END.length);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await writeFile(target, withErrorTable(await readFile(target, 'utf8'), renderErrorTable()));
  console.log(`wrote ${fileURLToPath(target)}`);
}
