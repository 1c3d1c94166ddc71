import type { CorpusScores, RougeSet, TextMetric, TextScores } from '../contracts/evaluate.js';
import { corpusBleu, sentenceBleu, type SmoothMethod } from './text/bleu.js';
import { meteor } from './text/meteor.js';
import { rouge } from './text/rouge.js';

// Text-overlap metrics as the reference implementations people trust compute them (parity-tested).
export const METRICS_VERSION = '1.0.0';
export const DEFINITIONS = {
  bleu: (smooth: SmoothMethod, form: 'sentence' | 'corpus') =>
    `sacrebleu 2.6.0 ${form}_bleu (tok 13a, smooth ${smooth}${form === 'sentence' ? ', effective order' : ''})`,
  rouge: "Google rouge-score (default tokenizer; stemmer: NLTK 3.8 Porter on tokens > 3 chars; several references: score_multi's best F)",
  meteor: 'NLTK 3.8 meteor_score (α 0.9, β 3, γ 0.5; exact, Porter stem, WordNet 3.0 synonym stages; whitespace tokens, lowercased; best reference)',
};

/**
 * ROUGE-L's LCS table grows with hypothesis × reference tokens: up to 40 M cells (two texts of some
 * 6,000 words each) a request is still answered promptly; past that it is refused rather than left to
 * run for seconds, its time growing with the product of the two lengths.
 */
const MAX_LCS_CELLS = 40_000_000;

/** A text pair the metrics refuse to score; the message says which limit. */
export class TextTooLong extends Error {
  override name = 'TextTooLong';
}

function rougeBounded(hypothesis: string, references: readonly string[], stemmer: boolean) {
  try {
    return rouge(hypothesis, references, { stemmer, maxLcsCells: MAX_LCS_CELLS });
  } catch (e) {
    if (e instanceof RangeError) throw new TextTooLong(`ROUGE-L: ${e.message}`);
    throw e;
  }
}
export function textScores(hypothesis: string, references: readonly string[], metrics: readonly TextMetric[], smooth: SmoothMethod = 'exp'): TextScores {
  const out: TextScores = {};
  if (metrics.includes('bleu'))
    out.bleu = { definition: DEFINITIONS.bleu(smooth, 'sentence'), ...sentenceBleu(hypothesis, references, { smoothMethod: smooth }) };
  if (metrics.includes('rouge')) {
    out.rouge = { definition: DEFINITIONS.rouge, no_stemmer: rougeBounded(hypothesis, references, false), stemmer: rougeBounded(hypothesis, references, true) };
  }
  if (metrics.includes('meteor')) {
    const { referenceIndex, ...m } = meteor(hypothesis, [...references]);
    out.meteor = { definition: DEFINITIONS.meteor, ...m, reference_index: referenceIndex };
  }
  return out;
}

/** Corpus BLEU as sacrebleu computes it (reference streams by position); ROUGE and METEOR as pair means. */
export function corpusScores(
  pairs: readonly { hypothesis: string; references: readonly string[] }[],
  metrics: readonly TextMetric[],
  smooth: SmoothMethod = 'exp',
): CorpusScores {
  const out: CorpusScores = {};
  if (metrics.includes('bleu')) {
    const width = pairs[0]!.references.length;
    const streams = Array.from({ length: width }, (_, j) => pairs.map((p) => p.references[j]!));
    out.bleu = {
      definition: DEFINITIONS.bleu(smooth, 'corpus'),
      ...corpusBleu(
        pairs.map((p) => p.hypothesis),
        streams,
        { smoothMethod: smooth },
      ),
    };
  }
  const each = pairs.map((p) =>
    textScores(
      p.hypothesis,
      p.references,
      metrics.filter((m) => m !== 'bleu'),
    ),
  );
  if (metrics.includes('rouge')) {
    const mean = (side: 'no_stemmer' | 'stemmer') =>
      Object.fromEntries(
        (['rouge1', 'rouge2', 'rougeL', 'rougeLsum'] as const).map((type) => [
          type,
          Object.fromEntries(
            (['precision', 'recall', 'fmeasure'] as const).map((k) => [k, each.reduce((s, e) => s + e.rouge![side][type][k], 0) / each.length]),
          ),
        ]),
      ) as unknown as RougeSet;
    out.rouge = { definition: `${DEFINITIONS.rouge}; mean over pairs`, no_stemmer: mean('no_stemmer'), stemmer: mean('stemmer') };
  }
  if (metrics.includes('meteor'))
    out.meteor = { definition: `${DEFINITIONS.meteor}; mean over pairs`, score: each.reduce((s, e) => s + e.meteor!.score, 0) / each.length };
  return out;
}
