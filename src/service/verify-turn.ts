import { untilAborted } from '../common/errors.js';
import type { VerifyTurnRequest } from '../contracts/verify-turn.js';
import { rankCandidates } from '../verify/ranking.js';
import { revealProbability } from '../verify/reveals.js';
import type { Service } from './context.js';

/** /verify-turn: every candidate scored by the turn verifier on one worker, and ranked. */
export async function verifyTurn(svc: Service, body: VerifyTurnRequest, signal: AbortSignal) {
  await untilAborted(svc.verifier.get(), signal);
  const { candidates, context, task, options } = body;
  // One worker verifies the whole request: split across idle workers, a lone request encoded the task and
  // the dialogue once per worker and took every core for one client.
  const { verification, info, reveals, misdirected, guided } = await svc.pool.run('verifyTask', { task, context, candidates }, signal);
  const scores = verification.candidates.map((c) => c.score);
  const ranking = rankCandidates(
    scores,
    reveals.map((r) => r !== null),
    misdirected.map((m) => m !== null),
    guided.map((g) => g !== null),
  );
  const best = ranking[0]!;
  return {
    scores,
    ranking: options?.top_k ? ranking.slice(0, options.top_k) : ranking,
    best: { index: best, text: candidates[best]!, score: scores[best]! },
    candidates: verification.candidates.map((c, index) => {
      const reveal = reveals[index]!;
      const dims =
        c.dimensions && 'reveals_answer' in c.dimensions
          ? { ...c.dimensions, reveals_answer: revealProbability(c.dimensions.reveals_answer, reveal)! }
          : c.dimensions;
      return { index, ...c, ...(dims ? { dimensions: dims } : {}), reveals: reveal, misdirects: misdirected[index]!, guides: guided[index]! };
    }),
    model: info,
    truncated: verification.truncated,
  };
}
