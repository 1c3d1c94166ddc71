/**
 * ROUGE as Google's rouge-score (`rouge_scorer.RougeScorer(...).score(target, prediction)`) computes
 * it with its default tokenizer. Our argument order is hypothesis first; rouge-score's is
 * `score(target=reference, prediction=hypothesis)`: precision is over the hypothesis, recall over
 * the reference. See test/fixtures/metric-reference/README.md.
 */
import { porterStem } from './porter.js';

export interface RougeScore {
  precision: number;
  recall: number;
  fmeasure: number;
}

/** rouge-score accepts `rouge1`..`rouge9` (regex `rouge[0-9]$`, n > 0), `rougeL` and `rougeLsum`. */
export type RougeType = `rouge${1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9}` | 'rougeL' | 'rougeLsum';
export type DefaultRougeType = 'rouge1' | 'rouge2' | 'rougeL' | 'rougeLsum';

export interface RougeOptions<T extends RougeType = DefaultRougeType> {
  /** rouge-score's `use_stemmer`: Porter-stem (NLTK 3.8) tokens longer than 3 characters. */
  stemmer: boolean;
  /** Default: rouge1, rouge2, rougeL, rougeLsum. */
  types?: readonly T[];
  /**
   * rougeL and rougeLsum cost |reference tokens| × |hypothesis tokens| DP cells. Above this a
   * RangeError is thrown before any DP work (default: no limit), so a service can refuse huge pairs.
   */
  maxLcsCells?: number;
}

const DEFAULT_TYPES: readonly DefaultRougeType[] = ['rouge1', 'rouge2', 'rougeL', 'rougeLsum'];
const ZERO = (): RougeScore => ({ precision: 0, recall: 0, fmeasure: 0 });

function fmeasure(p: number, r: number): number {
  return p + r > 0 ? (2 * p * r) / (p + r) : 0.0;
}

/**
 * rouge-score's default tokenizer: Unicode lowercase, everything but [a-z0-9] becomes a separator,
 * optional stemming of tokens longer than 3 characters. (Python's `str.lower()` and JS
 * `toLowerCase()` agree on the characters that lower to ASCII: U+0130 → "i̇", U+212A → "k".)
 */
export function rougeTokenize(text: string, stemmer: boolean, stemCache?: Map<string, string>): string[] {
  const toks = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  if (!stemmer) return toks;
  const cache = stemCache ?? new Map<string, string>();
  const out: string[] = [];
  for (const w of toks) {
    if (w.length <= 3) {
      out.push(w);
      continue;
    }
    let s = cache.get(w);
    if (s === undefined) cache.set(w, (s = porterStem(w)));
    // rouge-score drops tokens that are no longer ^[a-z0-9]+$ (a stem is never empty in practice).
    if (s.length > 0) out.push(s);
  }
  return out;
}

/** Maps tokens to dense integer ids shared by both sides, so LCS and n-gram work is on ints. */
class Interner {
  private readonly ids = new Map<string, number>();
  get size(): number {
    return this.ids.size;
  }
  of(toks: readonly string[]): Int32Array {
    const out = new Int32Array(toks.length);
    for (let i = 0; i < toks.length; i++) {
      const w = toks[i]!;
      let id = this.ids.get(w);
      if (id === undefined) this.ids.set(w, (id = this.ids.size));
      out[i] = id;
    }
    return out;
  }
}

/** ROUGE-N: clipped n-gram overlap; denominators are max(count, 1) as in rouge-score. */
function scoreNgrams(ref: Int32Array, hyp: Int32Array, n: number, vocab: number): RougeScore {
  const gramIds = (seq: Int32Array, intern: Map<number, number>): Int32Array => {
    // Unigram ids are token ids; an n-gram's id comes from (its (n-1)-prefix id, last token), above the vocabulary.
    let cur: Int32Array = seq;
    for (let k = 2; k <= n; k++) {
      const next = new Int32Array(Math.max(0, cur.length - 1));
      for (let i = 0; i < next.length; i++) {
        // Injective in (prefix, token) since token < vocab; prefixes of different orders have distinct ids.
        const key = cur[i]! * vocab + seq[i + k - 1]!;
        let id = intern.get(key);
        if (id === undefined) intern.set(key, (id = intern.size + vocab));
        next[i] = id;
      }
      cur = next;
    }
    return cur;
  };
  const intern = new Map<number, number>();
  const r = gramIds(ref, intern);
  const h = gramIds(hyp, intern);
  const size = vocab + intern.size;
  const rc = new Int32Array(size);
  for (const id of r) rc[id]!++;
  let overlap = 0;
  // Each hypothesis n-gram consumes one reference occurrence: sum of min(count_ref, count_hyp).
  for (const id of h) {
    if (rc[id]! > 0) {
      rc[id]!--;
      overlap++;
    }
  }
  const precision = overlap / Math.max(h.length, 1);
  const recall = overlap / Math.max(r.length, 1);
  return { precision, recall, fmeasure: fmeasure(precision, recall) };
}

// Scratch buffers reused across calls (the metrics are synchronous), grown on demand: rougeLsum
// runs one small DP per sentence pair and per-pair allocation dominated its time.
let rowBuf = new Int32Array(256);
let bitBuf = new Uint8Array(1024);
function row(n: number): Int32Array {
  if (rowBuf.length < n) rowBuf = new Int32Array(Math.max(n, rowBuf.length * 2));
  rowBuf.fill(0, 0, n);
  return rowBuf;
}

/** LCS length in one row (the cell above and the diagonal kept in locals); shorter sequence inner. */
function lcsLength(a: Int32Array, b: Int32Array): number {
  if (a.length < b.length) [a, b] = [b, a];
  const n = b.length;
  const r = row(n + 1);
  for (let i = 0; i < a.length; i++) {
    const ai = a[i]!;
    let diag = 0;
    let left = 0;
    for (let j = 1; j <= n; j++) {
      const up = r[j]!;
      const v = ai === b[j - 1]! ? diag + 1 : Math.max(left, up);
      diag = up;
      r[j] = v;
      left = v;
    }
  }
  return r[n]!;
}

function scoreLcs(ref: Int32Array, hyp: Int32Array): RougeScore {
  if (ref.length === 0 || hyp.length === 0) return ZERO();
  const l = lcsLength(ref, hyp);
  const precision = l / hyp.length;
  const recall = l / ref.length;
  return { precision, recall, fmeasure: fmeasure(precision, recall) };
}

/**
 * Marks in `out` the indices into `ref` of the LCS that rouge-score's non-recursive backtrack picks.
 * Which of several LCSs it picks changes the union in rougeLsum, so its tie rule is kept: on a
 * mismatch step left (drop a candidate token) only when table[i][j-1] > table[i-1][j], else up. The
 * forward pass keeps one row and records just that comparison, one bit per cell, not the table.
 */
function lcsRefIndices(ref: Int32Array, can: Int32Array, out: Uint8Array): void {
  const rows = ref.length;
  const cols = can.length;
  if (rows === 0 || cols === 0) return;
  const nBytes = ((rows * cols) >>> 3) + 1;
  if (bitBuf.length < nBytes) bitBuf = new Uint8Array(Math.max(nBytes, bitBuf.length * 2));
  const goLeft = bitBuf;
  goLeft.fill(0, 0, nBytes);
  const r = row(cols + 1);
  for (let i = 1; i <= rows; i++) {
    const ri = ref[i - 1]!;
    const base = (i - 1) * cols - 1;
    let diag = 0;
    let left = 0;
    for (let j = 1; j <= cols; j++) {
      const up = r[j]!;
      let v: number;
      if (ri === can[j - 1]!) {
        v = diag + 1;
      } else if (left > up) {
        const bit = base + j;
        goLeft[bit >>> 3]! |= 1 << (bit & 7);
        v = left;
      } else {
        v = up;
      }
      diag = up;
      r[j] = v;
      left = v;
    }
  }
  let i = rows;
  let j = cols;
  while (i > 0 && j > 0) {
    if (ref[i - 1] === can[j - 1]) {
      out[i - 1] = 1;
      i--;
      j--;
    } else {
      const bit = (i - 1) * cols + j - 1;
      if (goLeft[bit >>> 3]! & (1 << (bit & 7))) j--;
      else i--;
    }
  }
}

/**
 * Summary-level LCS (ROUGE-1.5.5 / rouge-score `_summary_level_lcs`): for each reference sentence the
 * union of its LCS positions against every candidate sentence; a hit is counted only while the token
 * still has unused occurrences on both sides (the double-count guard).
 */
function scoreSummaryLcs(refSents: Int32Array[], canSents: Int32Array[], vocab: number): RougeScore {
  if (refSents.length === 0 || canSents.length === 0) return ZERO();
  let m = 0;
  let n = 0;
  for (const s of refSents) m += s.length;
  for (const s of canSents) n += s.length;
  if (m === 0 || n === 0) return ZERO();
  const cntR = new Int32Array(vocab);
  const cntC = new Int32Array(vocab);
  for (const s of refSents) for (const t of s) cntR[t]!++;
  for (const s of canSents) for (const t of s) cntC[t]!++;
  let hits = 0;
  for (const r of refSents) {
    const inUnion = new Uint8Array(r.length);
    for (const c of canSents) lcsRefIndices(r, c, inUnion);
    for (let k = 0; k < r.length; k++) {
      if (!inUnion[k]) continue;
      const t = r[k]!;
      if (cntC[t]! > 0 && cntR[t]! > 0) {
        hits++;
        cntC[t]!--;
        cntR[t]!--;
      }
    }
  }
  const recall = hits / m;
  const precision = hits / n;
  return { precision, recall, fmeasure: fmeasure(precision, recall) };
}

/** rouge-score's rougeLsum sentence split: on "\n" only, empty pieces dropped ("\r" stays a sentence). */
function sentences(text: string): string[] {
  return text.split('\n').filter((s) => s.length > 0);
}

function checkCells(m: number, n: number, limit: number): void {
  if (m * n > limit) throw new RangeError(`LCS of ${m} × ${n} tokens exceeds maxLcsCells ${limit}`);
}

function scoreOne<T extends RougeType>(hypothesis: string, reference: string, stemmer: boolean, types: readonly T[], limit: number): Record<T, RougeScore> {
  const cache = new Map<string, string>();
  const intern = new Interner();
  let ref: Int32Array | undefined;
  let hyp: Int32Array | undefined;
  const whole = (): [Int32Array, Int32Array] => {
    ref ??= intern.of(rougeTokenize(reference, stemmer, cache));
    hyp ??= intern.of(rougeTokenize(hypothesis, stemmer, cache));
    return [ref, hyp];
  };
  const out = {} as Record<T, RougeScore>;
  for (const type of types) {
    if (type === 'rougeL') {
      const [r, h] = whole();
      checkCells(r.length, h.length, limit);
      out[type] = scoreLcs(r, h);
    } else if (type === 'rougeLsum') {
      const r = sentences(reference).map((s) => intern.of(rougeTokenize(s, stemmer, cache)));
      const c = sentences(hypothesis).map((s) => intern.of(rougeTokenize(s, stemmer, cache)));
      // Summed over sentence pairs the DP is still (all reference tokens) × (all hypothesis tokens).
      checkCells(
        r.reduce((a, x) => a + x.length, 0),
        c.reduce((a, x) => a + x.length, 0),
        limit,
      );
      out[type] = scoreSummaryLcs(r, c, intern.size);
    } else {
      const m = /^rouge([1-9])$/.exec(type);
      if (!m) throw new RangeError(`invalid rouge type: ${type}`);
      const [r, h] = whole();
      out[type] = scoreNgrams(r, h, Number(m[1]), intern.size);
    }
  }
  return out;
}

/**
 * ROUGE scores of `hypothesis` against `reference`. With several references this is rouge-score's
 * `score_multi`: per type, the whole (P, R, F) of the reference with the highest F (the first one on
 * ties, as numpy's argmax), so P and R may come from different references for different types.
 */
export function rouge<T extends RougeType = DefaultRougeType>(
  hypothesis: string,
  reference: string | readonly string[],
  opts: RougeOptions<T>,
): Record<T, RougeScore> {
  const types = (opts.types ?? DEFAULT_TYPES) as readonly T[];
  const limit = opts.maxLcsCells ?? Infinity;
  if (typeof reference === 'string') return scoreOne(hypothesis, reference, opts.stemmer, types, limit);
  if (reference.length === 0) throw new RangeError('rouge needs at least one reference');
  const all = reference.map((r) => scoreOne(hypothesis, r, opts.stemmer, types, limit));
  const out = {} as Record<T, RougeScore>;
  for (const type of types) {
    let best = all[0]![type];
    for (const s of all) if (s[type].fmeasure > best.fmeasure) best = s[type];
    out[type] = best;
  }
  return out;
}
