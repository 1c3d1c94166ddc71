// METEOR as NLTK 3.8 computes it:
//   nltk.translate.meteor_score.meteor_score([r.split() for r in refs], hyp.split(),
//       preprocess=str.lower, stemmer=PorterStemmer(), wordnet=wordnet, alpha=0.9, beta=3, gamma=0.5)
// with Princeton WordNet 3.0 (see wordnet.ts). Parity is pinned by test/fixtures/meteor/nltk-3.8.json.
//
// Tokenization: Python's `str.split()` (runs of Unicode whitespace), then `str.lower` per token.
// NLTK quirks kept on purpose, because they change scores:
//  - each stage matches greedily from the END of the hypothesis, each word to the LAST free
//    reference word; this choice decides the chunk count;
//  - the WordNet stage sees the Porter STEMS left over by the stem stage (so "big" vs "large" does not
//    match: "large" has become "larg"), and only single-word lemma names count as synonyms;
//  - any zero denominator (empty side, no match) gives 0; the best reference is the first maximal one.
//
// Synchronous: WordNet is loaded lazily on the first call (its files read, tens of ms, once per thread unless
// the thread was given shared ones); call `getWordNet()` at startup to pay that up front.

import { porterStem } from './porter.js';
import { pySplit } from './tokenize-13a.js';
import { getWordNet, type WordNet } from './wordnet.js';

export interface MeteorOptions {
  /** Weight of precision vs recall in the F-mean (NLTK default 0.9). */
  alpha?: number;
  /** Shape of the fragmentation penalty (default 3). */
  beta?: number;
  /** Maximum fragmentation penalty weight (default 0.5). */
  gamma?: number;
  /** WordNet to use; defaults to the bundled WordNet 3.0. */
  wordnet?: WordNet;
}

export interface MeteorResult {
  /** (1 - penalty) * fmean for the best reference; 0 when any denominator is 0. */
  score: number;
  precision: number;
  recall: number;
  fmean: number;
  /** gamma * (chunks / matches) ^ beta */
  penalty: number;
  chunks: number;
  matches: number;
  /** Index into `references` of the reference that gave `score` (first one on ties). */
  referenceIndex: number;
}

type Enum = Array<{ i: number; w: string }>;
type Pair = [number, number];

/**
 * One NLTK matching stage: hypothesis words from last to first, each paired with the last remaining
 * reference word accepted by `same`; matched words leave both lists.
 */
function matchStage(hyp: Enum, ref: Enum, same: (h: string) => (r: string) => boolean): Pair[] {
  const out: Pair[] = [];
  for (let i = hyp.length - 1; i >= 0; i--) {
    const h = hyp[i]!;
    const accepts = same(h.w);
    for (let j = ref.length - 1; j >= 0; j--) {
      if (accepts(ref[j]!.w)) {
        out.push([h.i, ref[j]!.i]);
        hyp.splice(i, 1);
        ref.splice(j, 1);
        break;
      }
    }
  }
  return out;
}

/** Exact, then stem, then WordNet-synonym alignment, sorted by hypothesis position. */
export function alignWords(hypTokens: string[], refTokens: string[], wordnet: WordNet = getWordNet()): Pair[] {
  let hyp: Enum = hypTokens.map((w, i) => ({ i, w: w.toLowerCase() }));
  let ref: Enum = refTokens.map((w, i) => ({ i, w: w.toLowerCase() }));
  const exact = matchStage(hyp, ref, (h) => (r) => r === h);
  hyp = hyp.map(({ i, w }) => ({ i, w: porterStem(w) }));
  ref = ref.map(({ i, w }) => ({ i, w: porterStem(w) }));
  const stem = matchStage(hyp, ref, (h) => (r) => r === h);
  const syn = matchStage(hyp, ref, (h) => {
    const syns = wordnet.synonyms(h);
    return (r) => syns.has(r);
  });
  return [...exact, ...stem, ...syn].sort((a, b) => a[0] - b[0]);
}

/** Fewest runs of matches adjacent in both hypothesis and reference (NLTK `_count_chunks`). */
export function countChunks(matches: Pair[]): number {
  let chunks = 1;
  for (let k = 0; k + 1 < matches.length; k++) {
    const [h0, r0] = matches[k]!;
    const [h1, r1] = matches[k + 1]!;
    if (!(h1 === h0 + 1 && r1 === r0 + 1)) chunks++;
  }
  return chunks;
}

function single(hypTokens: string[], refTokens: string[], alpha: number, beta: number, gamma: number, wn: WordNet) {
  const zero = { score: 0, precision: 0, recall: 0, fmean: 0, penalty: 0, chunks: 0, matches: 0 };
  const matches = alignWords(hypTokens, refTokens, wn);
  const m = matches.length;
  // Where Python would raise ZeroDivisionError, NLTK returns 0.
  if (hypTokens.length === 0 || refTokens.length === 0) return zero;
  const precision = m / hypTokens.length;
  const recall = m / refTokens.length;
  const denom = alpha * precision + (1 - alpha) * recall;
  if (denom === 0 || m === 0) return zero;
  const fmean = (precision * recall) / denom;
  const chunks = countChunks(matches);
  const penalty = gamma * (chunks / m) ** beta;
  return { score: (1 - penalty) * fmean, precision, recall, fmean, penalty, chunks, matches: m };
}

/**
 * METEOR of `hypothesis` against the best of `references` (NLTK 3.8 semantics, see top of file).
 * Throws on an empty `references`, as NLTK's max() over nothing does.
 */
export function meteor(hypothesis: string, references: string[], opts: MeteorOptions = {}): MeteorResult {
  if (references.length === 0) throw new RangeError('meteor: at least one reference is required');
  const { alpha = 0.9, beta = 3, gamma = 0.5 } = opts;
  const wn = opts.wordnet ?? getWordNet();
  const hyp = pySplit(hypothesis);
  let best: MeteorResult | undefined;
  references.forEach((reference, referenceIndex) => {
    const r = single(hyp, pySplit(reference), alpha, beta, gamma, wn);
    if (best === undefined || r.score > best.score) best = { ...r, referenceIndex };
  });
  return best!;
}
