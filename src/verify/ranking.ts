/** Candidate indices by score, best first; equal scores keep request order, so a ranking is reproducible. */
export function rankCandidates(scores: readonly number[]): number[] {
  return scores.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
}
