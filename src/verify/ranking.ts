/**
 * Candidate indices by score, best first; equal scores keep request order, so a ranking is reproducible.
 * With the fix known, candidates that point the student at a line the fix changes (`guides`) come first;
 * those that send the student to other lines (`misdirects`) after every one that does not, and those that
 * give the solution away (`reveals`) after all: a backend that sends the first never sends the answer, nor
 * a wrong pointer, while a turn that guides exists, and sends a turn aimed at the bug over one that is not.
 */
export function rankCandidates(
  scores: readonly number[],
  reveals: readonly boolean[] = [],
  misdirects: readonly boolean[] = [],
  guides: readonly boolean[] = [],
): number[] {
  const tier = (i: number) => (reveals[i] ? 3 : misdirects[i] ? 2 : guides[i] ? 0 : 1);
  return scores.map((_, i) => i).sort((a, b) => tier(a) - tier(b) || scores[b]! - scores[a]! || a - b);
}
