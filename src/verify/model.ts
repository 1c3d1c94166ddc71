// What every turn verifier is, whichever model kind serves it (verifier.ts loads one by its manifest).
import type { SentenceEncoder } from '../text/encoder.js';
import type { VerifierManifest } from './manifest.js';
import type { DialogueTurn, VerifyTask } from '../contracts/verify-turn.js';

export interface VerifyInput {
  task: VerifyTask;
  context: readonly DialogueTurn[];
  candidates: readonly string[];
}

interface CandidateScore {
  /** Predicted turn value v ∈ [0, 1]. */
  score: number;
  logit: number;
  features?: Record<string, number>;
  /** Predicted probability of each labelled quality (e.g. reveals_answer), when the model has them. */
  dimensions?: Record<string, number>;
}

export interface Verification {
  candidates: CandidateScore[];
  truncated: { task: boolean; context: boolean; candidates: number[] };
}

/** A turn verifier. Each candidate is scored on its own, whatever the others are. */
export interface TurnVerifier {
  readonly info: { name: string; version: string; kind: VerifierManifest['kind'] };
  verify(input: VerifyInput): Promise<Verification>;
}

/** Verifications of consecutive parts of one request's candidates (same task and context), as one. */
export function joinVerifications(parts: readonly Verification[]): Verification {
  let offset = 0;
  const candidates: number[] = [];
  for (const p of parts) {
    candidates.push(...p.truncated.candidates.map((i) => i + offset));
    offset += p.candidates.length;
  }
  return {
    candidates: parts.flatMap((p) => p.candidates),
    truncated: { task: parts.some((p) => p.truncated.task), context: parts.some((p) => p.truncated.context), candidates },
  };
}

/** Resolves an encoder directory to its (shared) loaded encoder. */
export type EncoderAt = (dir: string) => Promise<SentenceEncoder>;

/** Turns a logit into the turn value v ∈ [0, 1]. */
export const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));
