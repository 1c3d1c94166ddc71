// Outcome-labelled dialogues → verifier training rows, one JSON line per tutor turn (Traver eqs. 1–2).
//   npm run turn-labels -- ../shared/data/mathdial/dialogues.jsonl > rows.jsonl
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { mathdialRows } from '../training/mathdial.js';

const input = process.argv[2];
if (!input) {
  console.error('usage: npm run turn-labels -- <dialogues.jsonl>   (MathDial format; rows go to stdout)');
  process.exit(2);
}
// A closed pipe (`… | head`) ends the run quietly.
process.stdout.on('error', (err: NodeJS.ErrnoException) => process.exit(err.code === 'EPIPE' ? 0 : 1));
let dialogues = 0;
let skipped = 0;
let rows = 0;
for await (const line of createInterface({ input: createReadStream(input) })) {
  if (line.trim() === '') continue;
  dialogues++;
  const out = mathdialRows(JSON.parse(line) as Record<string, unknown>);
  if (out.length === 0) skipped++;
  for (const row of out) process.stdout.write(`${JSON.stringify(row)}\n`);
  rows += out.length;
}
console.error(`${dialogues} dialogues → ${rows} rows (${skipped} without an outcome or tutor turns, skipped)`);
