import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

// The word table of models/word-vectors (training/word-vectors.ts): every WordNet 3.0 single-word lemma and
// programming word, each with USE-lite's embedding of it alone, centred, projected and stored as int8 rows
// of unit length. It answers two questions about a word of plan text: is it a real word, and what does it mean.

const DIR = fileURLToPath(new URL('../../../models/word-vectors', import.meta.url));

export interface WordTable {
  readonly version: string;
  readonly dims: number;
  /** The row of a word as written (lowercase), through WordNet's irregular forms and its detachment rules; -1 when unknown. */
  row(word: string): number;
  /** Whether a word without a row is still a word: one that two documents of the table's text or more use ("since", "numpy"). */
  known(word: string): boolean;
  /** How much word `r` says: its inverse document frequency, in (0, 1]. */
  weight(r: number): number;
  /** Adds row `r` of the table, times `weight`, into `into`. */
  addRow(into: Float32Array, r: number, weight: number): void;
}

// Morphy's detachment rules (WordNet's morph.c) for every part of speech, tried in turn on a form the table does not hold.
const DETACH: ReadonlyArray<readonly [string, string]> = [
  ['s', ''],
  ['ses', 's'],
  ['xes', 'x'],
  ['zes', 'z'],
  ['ches', 'ch'],
  ['shes', 'sh'],
  ['men', 'man'],
  ['ies', 'y'],
  ['es', 'e'],
  ['es', ''],
  ['ed', 'e'],
  ['ed', ''],
  ['ing', 'e'],
  ['ing', ''],
  ['er', ''],
  ['est', ''],
  ['er', 'e'],
  ['est', 'e'],
];

class Table implements WordTable {
  private readonly rows = new Map<string, number>();
  private readonly scale: number;

  constructor(
    readonly version: string,
    readonly dims: number,
    vocab: readonly string[],
    inflections: readonly string[],
    private readonly vectors: Int8Array,
    private readonly weights: Uint8Array,
    private readonly words: ReadonlySet<string>,
  ) {
    for (let i = 0; i < vocab.length; i++) this.rows.set(vocab[i]!, i);
    for (const line of inflections) {
      const [form, lemma] = line.split(' ');
      const r = this.rows.get(lemma!);
      if (r !== undefined && !this.rows.has(form!)) this.rows.set(form!, r);
    }
    this.scale = 1 / 127;
  }

  row(word: string): number {
    const direct = this.rows.get(word);
    if (direct !== undefined) return direct;
    for (const [suffix, replacement] of DETACH) {
      if (word.length > suffix.length + 2 && word.endsWith(suffix)) {
        const r = this.rows.get(word.slice(0, word.length - suffix.length) + replacement);
        if (r !== undefined) {
          this.rows.set(word, r);
          return r;
        }
      }
    }
    return -1;
  }

  known(word: string): boolean {
    return this.words.has(word);
  }

  weight(r: number): number {
    return Math.max(1, this.weights[r]!) / 255;
  }

  addRow(into: Float32Array, r: number, weight: number): void {
    const w = weight * this.scale;
    const base = r * this.dims;
    for (let k = 0; k < this.dims; k++) into[k]! += w * this.vectors[base + k]!;
  }
}

const lines = (file: string) =>
  readFileSync(join(DIR, file), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0);

let table: WordTable | undefined;

/** The process's word table, read on first use (7.5 MB of int8 rows and 78,000 words). */
export function wordTable(): WordTable {
  if (table === undefined) {
    const manifest = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8')) as { version: string; dims: number };
    const bytes = readFileSync(join(DIR, 'vectors.i8'));
    const vectors = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    table = new Table(
      manifest.version,
      manifest.dims,
      lines('vocab.txt'),
      lines('inflections.txt'),
      vectors,
      readFileSync(join(DIR, 'weights.u8')),
      new Set(lines('known.txt')),
    );
  }
  return table;
}
