/**
 * Candidate indices by score, best first; equal scores keep request order, so a ranking is reproducible.
 * Candidates that give the solution away (`reveals`) come after every one that does not: a backend that
 * sends the first never sends the answer while a turn that guides exists.
 */
export function rankCandidates(scores: readonly number[], reveals: readonly boolean[] = []): number[] {
  const late = (i: number) => (reveals[i] ? 1 : 0);
  return scores.map((_, i) => i).sort((a, b) => late(a) - late(b) || scores[b]! - scores[a]! || a - b);
}
