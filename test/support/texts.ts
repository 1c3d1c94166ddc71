import { EVALUATE_LIMITS } from '../../src/contracts/evaluate.js';

/** A text at the length limit of /evaluate-text; two of them (different `k`) are too long for ROUGE-L. */
export const limitLengthText = (k: number): string =>
  Array.from({ length: 2100 }, (_, i) => `The teacher explains step ${i + k} and the learner asks why.`)
    .join(' ')
    .slice(0, EVALUATE_LIMITS.maxTextChars);
