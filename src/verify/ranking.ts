/**
 * Candidate indices by score, best first; equal scores keep request order, so a ranking is reproducible.
 * Candidates that send the student to the wrong lines (`misdirects`) come after every one that does not, and
 * those that give the solution away (`reveals`) after all: a backend that sends the first never sends the
 * answer, nor a wrong pointer, while a turn that guides exists.
 */
export function rankCandidates(scores: readonly number[], reveals: readonly boolean[] = [], misdirects: readonly boolean[] = []): number[] {
  const late = (i: number) => (reveals[i] ? 2 : misdirects[i] ? 1 : 0);
  return scores.map((_, i) => i).sort((a, b) => late(a) - late(b) || scores[b]! - scores[a]! || a - b);
}
