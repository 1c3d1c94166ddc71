import { words } from './conversation.js';

// A BERTScore-style score (Zhang et al. 2020: greedy matching of contextual token vectors, F1 of the
// mean best cosines) on the service's sentence encoder's token states. It is NOT BERTScore as published:
// no roberta-large, no idf weighting, no baseline rescaling — values are comparable only with each other.

export interface TokenMatch {
  precision: number;
  recall: number;
  f1: number;
  hypothesis_tokens: number;
  reference_tokens: number;
  /** Tokens past MAX_TOKENS on a side were left out. */
  truncated: boolean;
}

/** Tokens per side: the greedy matching costs hypothesis × reference cosines. */
const MAX_TOKENS = 512;

/** Greedy matching: each token takes its most similar token on the other side. */
export function tokenMatchF1(hypothesis: readonly Float32Array[], reference: readonly Float32Array[], truncated = false): TokenMatch {
  const base = { hypothesis_tokens: hypothesis.length, reference_tokens: reference.length, truncated };
  if (hypothesis.length === 0 || reference.length === 0) return { precision: 0, recall: 0, f1: 0, ...base };
  const d = hypothesis[0]!.length;
  const h = packUnit(hypothesis, d);
  const r = packUnit(reference, d);
  const bestOfRef = new Float64Array(reference.length).fill(-Infinity);
  let precisionSum = 0;
  for (let i = 0; i < hypothesis.length; i++) {
    let best = -Infinity;
    for (let j = 0; j < reference.length; j++) {
      const dot = dotAt(h, i * d, r, j * d, d);
      if (dot > best) best = dot;
      if (dot > bestOfRef[j]!) bestOfRef[j] = dot;
    }
    precisionSum += best;
  }
  const precision = precisionSum / hypothesis.length;
  const recall = bestOfRef.reduce((s, x) => s + x, 0) / reference.length;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1, ...base };
}

/** Dot product of a[ai..ai+d) and b[bi..bi+d), four accumulators (faster in V8 than one). */
function dotAt(a: Float64Array, ai: number, b: Float64Array, bi: number, d: number): number {
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  let k = 0;
  for (; k + 3 < d; k += 4) {
    a0 += a[ai + k]! * b[bi + k]!;
    a1 += a[ai + k + 1]! * b[bi + k + 1]!;
    a2 += a[ai + k + 2]! * b[bi + k + 2]!;
    a3 += a[ai + k + 3]! * b[bi + k + 3]!;
  }
  for (; k < d; k++) a0 += a[ai + k]! * b[bi + k]!;
  return a0 + a1 + a2 + a3;
}

/** Unit-length copies of the vectors, one contiguous array: the cosine becomes a dot product. */
function packUnit(vectors: readonly Float32Array[], d: number): Float64Array {
  const out = new Float64Array(vectors.length * d);
  vectors.forEach((v, i) => {
    let n = 0;
    for (const x of v) n += x * x;
    n = Math.sqrt(n) || 1;
    for (let k = 0; k < d; k++) out[i * d + k] = v[k]! / n;
  });
  return out;
}

/**
 * Texts longer than the encoder's input are read in chunks of whole sentences (at most `maxWords` words
 * each, a long sentence cut), so every token of a long tutorial counts, each in its own sentence context.
 */
export function chunks(text: string, maxWords: number): string[] {
  const out: string[] = [];
  let current: string[] = [];
  for (const sentence of text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean)) {
    const w = sentence.split(/\s+/);
    for (let i = 0; i < w.length; i += maxWords) {
      const piece = w.slice(i, i + maxWords);
      if (current.length + piece.length > maxWords && current.length) {
        out.push(current.join(' '));
        current = [];
      }
      current.push(...piece);
    }
  }
  if (current.length) out.push(current.join(' '));
  return out;
}

export interface TokenStateSource {
  tokenStates(texts: readonly string[]): Promise<{ states: Float32Array[] }[]>;
}

// About 1.3 sentence-piece tokens a word in English tutoring text; 80 words stay under 128 tokens.
const CHUNK_WORDS = 80;

export async function tokenMatchScore(encoder: TokenStateSource, hypothesis: string, reference: string): Promise<TokenMatch> {
  if (words(hypothesis).length === 0 || words(reference).length === 0) return tokenMatchF1([], []);
  // Only the chunks that can contribute tokens below the cap are encoded.
  const cap = (texts: string[]) => texts.slice(0, Math.ceil(MAX_TOKENS / (CHUNK_WORDS / 2)));
  const h = chunks(hypothesis, CHUNK_WORDS);
  const r = chunks(reference, CHUNK_WORDS);
  const [hc, rc] = [cap(h), cap(r)];
  const states = await encoder.tokenStates([...hc, ...rc]);
  const flat = (from: number, to: number) => states.slice(from, to).flatMap((s) => s.states);
  const hs = flat(0, hc.length);
  const rs = flat(hc.length, states.length);
  const truncated = hc.length < h.length || rc.length < r.length || hs.length > MAX_TOKENS || rs.length > MAX_TOKENS;
  return tokenMatchF1(hs.slice(0, MAX_TOKENS), rs.slice(0, MAX_TOKENS), truncated);
}
