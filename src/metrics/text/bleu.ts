/**
 * BLEU as sacrebleu 2.6.0 computes it (`sentence_bleu`, `corpus_bleu`, `BLEU.compute_bleu`), quirks
 * included: see test/fixtures/metric-reference/README.md. Scores are on the 0–100 scale.
 */
import { pyRstrip, tokens13a } from './tokenize-13a.js';

export { tokenize13a } from './tokenize-13a.js';

export type SmoothMethod = 'exp' | 'floor' | 'add-k' | 'none';

export interface BleuOptions {
  /** Default 'exp'. */
  smoothMethod?: SmoothMethod;
  /** Default 0.1 for 'floor' and 1 for 'add-k'; ignored by 'exp' and 'none'. */
  smoothValue?: number;
  /** Lowercase both sides first (String#toLowerCase standing in for Python's str.lower). Default false. */
  lowercase?: boolean;
  /** Average over the orders the hypothesis is long enough for. Default true for sentenceBleu, false for corpusBleu. */
  useEffectiveOrder?: boolean;
  /** Default 4. */
  maxNgramOrder?: number;
}

export interface BleuScore {
  /** 0–100. */
  score: number;
  /** Clipped n-gram matches, n = 1..maxNgramOrder (after add-k's in-place increments). */
  counts: number[];
  /** Hypothesis n-gram counts, n = 1..maxNgramOrder (after add-k's in-place increments). */
  totals: number[];
  /** Percentages, 0–100. */
  precisions: number[];
  bp: number;
  sys_len: number;
  ref_len: number;
}

const SMOOTH_DEFAULTS: Record<SmoothMethod, number> = { exp: 0, none: 0, floor: 0.1, 'add-k': 1 };

/** sacrebleu's `my_log`: log(0) is a large negative constant rather than -Infinity. */
function myLog(x: number): number {
  return x === 0 ? -9999999999 : Math.log(x);
}

/**
 * Per-segment statistics `[sys_len, ref_len, correct_1..N, total_1..N]`, as sacrebleu's
 * `_compute_segment_statistics` builds them.
 */
function segmentStats(hyp: string, refs: readonly string[], maxN: number, lowercase: boolean): number[] {
  const prep = (s: string): string[] => tokens13a(pyRstrip(lowercase ? s.toLowerCase() : s));
  const hypToks = prep(hyp);
  const refToks = refs.map(prep);

  // Intern tokens, then n-grams order by order (n-gram id = id of its (n-1)-prefix paired with its
  // last token), so counting is on integers instead of millions of joined strings.
  const vocab = new Map<string, number>();
  const toIds = (toks: string[]): number[] =>
    toks.map((w) => {
      let id = vocab.get(w);
      if (id === undefined) vocab.set(w, (id = vocab.size));
      return id;
    });
  const hypIds = toIds(hypToks);
  const refIds = refToks.map(toIds);
  const V = vocab.size;

  // Closest reference length; on a tie the shorter one.
  let refLen = -1;
  let bestDiff = -1;
  for (const r of refToks) {
    const diff = Math.abs(hypToks.length - r.length);
    if (bestDiff === -1 || diff < bestDiff || (diff === bestDiff && r.length < refLen)) {
      bestDiff = diff;
      refLen = r.length;
    }
  }

  const correct: number[] = [];
  const total: number[] = [];
  let hypGrams: number[] = hypIds;
  let refGrams: number[][] = refIds;
  for (let n = 1; n <= maxN; n++) {
    if (n > 1) {
      const intern = new Map<number, number>();
      const extend = (prev: number[], toks: number[]): number[] => {
        const out = new Array<number>(Math.max(0, prev.length - 1));
        for (let i = 0; i < out.length; i++) {
          const key = prev[i]! * V + toks[i + n - 1]!;
          let id = intern.get(key);
          if (id === undefined) intern.set(key, (id = intern.size));
          out[i] = id;
        }
        return out;
      };
      hypGrams = extend(hypGrams, hypIds);
      refGrams = refGrams.map((g, k) => extend(g, refIds[k]!));
    }
    let size = 0;
    for (const id of hypGrams) if (id >= size) size = id + 1;
    // Only n-grams that occur in the hypothesis can match; larger ids are ignored.
    const hypCount = new Int32Array(size);
    for (const id of hypGrams) hypCount[id]!++;
    const refMax = new Int32Array(size); // max count over references (sacrebleu's merged reference n-grams)
    const one = new Int32Array(size);
    for (const g of refGrams) {
      one.fill(0);
      for (const id of g) if (id < size) one[id]!++;
      for (let i = 0; i < size; i++) if (one[i]! > refMax[i]!) refMax[i] = one[i]!;
    }
    let c = 0;
    for (let i = 0; i < size; i++) c += Math.min(hypCount[i]!, refMax[i]!);
    correct.push(c);
    total.push(Math.max(0, hypToks.length - n + 1));
  }
  return [hypToks.length, refLen, ...correct, ...total];
}

/**
 * sacrebleu's `BLEU.compute_bleu`. Mutates `correct` and `total` for add-k exactly as sacrebleu does
 * (the returned counts/totals include the increments).
 */
function computeBleu(
  correct: number[],
  total: number[],
  sysLen: number,
  refLen: number,
  method: SmoothMethod,
  smoothValue: number,
  effectiveOrder: boolean,
  maxN: number,
): BleuScore {
  const bp = sysLen < refLen ? (sysLen > 0 ? Math.exp(1 - refLen / sysLen) : 0.0) : 1.0;
  const precisions = new Array<number>(maxN).fill(0);
  const result = (score: number): BleuScore => ({ score, counts: correct, totals: total, precisions, bp, sys_len: sysLen, ref_len: refLen });

  // No match at any order: sacrebleu returns 0 before smoothing (and before add-k touches counts).
  if (!correct.some((c) => c !== 0)) return result(0.0);

  let smoothMteval = 1;
  let effOrder = maxN;
  for (let n = 1; n <= maxN; n++) {
    if (method === 'add-k' && n > 1) {
      correct[n - 1]! += smoothValue;
      total[n - 1]! += smoothValue;
    }
    if (total[n - 1] === 0) break;
    if (effectiveOrder) effOrder = n;
    if (correct[n - 1] === 0) {
      if (method === 'exp') {
        smoothMteval *= 2;
        precisions[n - 1] = 100 / (smoothMteval * total[n - 1]!);
      } else if (method === 'floor') {
        precisions[n - 1] = (100 * smoothValue) / total[n - 1]!;
      }
    } else {
      precisions[n - 1] = (100 * correct[n - 1]!) / total[n - 1]!;
    }
  }
  let logSum = 0;
  for (let i = 0; i < effOrder; i++) logSum += myLog(precisions[i]!);
  return result(bp * Math.exp(logSum / effOrder));
}

function resolve(opts: BleuOptions | undefined, effectiveDefault: boolean) {
  const method = opts?.smoothMethod ?? 'exp';
  if (!(method in SMOOTH_DEFAULTS)) throw new RangeError(`unknown smoothMethod ${String(method)}`);
  const maxN = opts?.maxNgramOrder ?? 4;
  if (!Number.isInteger(maxN) || maxN < 1) throw new RangeError(`maxNgramOrder must be a positive integer, got ${maxN}`);
  return {
    method,
    smoothValue: opts?.smoothValue ?? SMOOTH_DEFAULTS[method],
    lowercase: opts?.lowercase ?? false,
    effective: opts?.useEffectiveOrder ?? effectiveDefault,
    maxN,
  };
}

function fromStats(stats: number[], o: ReturnType<typeof resolve>): BleuScore {
  const [sysLen, refLen] = stats as [number, number];
  return computeBleu(stats.slice(2, 2 + o.maxN), stats.slice(2 + o.maxN), sysLen, refLen, o.method, o.smoothValue, o.effective, o.maxN);
}

/**
 * sacrebleu `sentence_bleu(hypothesis, references, ...)`: one hypothesis against one or more
 * reference strings (closest reference length, n-gram counts clipped by the max over references).
 * `useEffectiveOrder` defaults to true, as in sacrebleu.
 */
export function sentenceBleu(hypothesis: string, references: readonly string[], opts?: BleuOptions): BleuScore {
  if (references.length === 0) throw new RangeError('sentenceBleu needs at least one reference');
  const o = resolve(opts, true);
  return fromStats(segmentStats(hypothesis, references, o.maxN, o.lowercase), o);
}

/**
 * sacrebleu `corpus_bleu(hypotheses, referenceStreams, ...)`: statistics summed over segments, then one
 * score. `referenceStreams` is a list of streams, each aligned with `hypotheses`
 * (one reference per segment: `[refs]`). `useEffectiveOrder` defaults to false, as in sacrebleu.
 */
export function corpusBleu(hypotheses: readonly string[], referenceStreams: readonly (readonly string[])[], opts?: BleuOptions): BleuScore {
  if (referenceStreams.length === 0) throw new RangeError('corpusBleu needs at least one reference stream');
  for (const s of referenceStreams) {
    if (s.length !== hypotheses.length) throw new RangeError(`reference stream has ${s.length} segments, hypotheses ${hypotheses.length}`);
  }
  const o = resolve(opts, false);
  const sum = new Array<number>(2 + 2 * o.maxN).fill(0);
  for (let i = 0; i < hypotheses.length; i++) {
    const stats = segmentStats(
      hypotheses[i]!,
      referenceStreams.map((s) => s[i]!),
      o.maxN,
      o.lowercase,
    );
    for (let k = 0; k < sum.length; k++) sum[k]! += stats[k]!;
  }
  return fromStats(sum, o);
}
