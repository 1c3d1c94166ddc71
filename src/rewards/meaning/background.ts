import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The average plan (models/word-vectors/background.json, written by scripts/corpus/fit-meaning.ts): the unit
// mean of the calibration split's honest plans, each read as one text. What every tutoring plan shares,
// whatever its question: generic text ("a friendly overview of the key idea, then practise") sits near it.
const FILE = fileURLToPath(new URL('../../../models/word-vectors/background.json', import.meta.url));

let average: Float32Array | undefined;

/** The average plan's unit vector in the word table's space, read once. */
export function averagePlan(): Float32Array {
  average ??= Float32Array.from((JSON.parse(readFileSync(FILE, 'utf8')) as { average_plan: number[] }).average_plan);
  return average;
}
