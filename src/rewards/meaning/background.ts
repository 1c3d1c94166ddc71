import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { WordTable } from './word-vectors.js';
import { contentRows, meanOf } from './words.js';

// The background queries (models/word-vectors/background.json, written by scripts/corpus/fit-meaning.ts from
// the calibration split's questions): what "a question like this one" reads as, so that a step fitting every
// such question alike is told from one about this question.
const FILE = fileURLToPath(new URL('../../../models/word-vectors/background.json', import.meta.url));

let vectors: Float32Array[] | undefined;

/** Each background query's unit vector (the mean of its content words' rows), read once. */
export function backgroundQueries(t: WordTable): Float32Array[] {
  vectors ??= (JSON.parse(readFileSync(FILE, 'utf8')) as { queries: string[] }).queries
    .map((q) => meanOf(contentRows(q, t), t))
    .filter((v): v is Float32Array => v !== null);
  return vectors;
}
