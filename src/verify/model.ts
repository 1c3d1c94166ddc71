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
  /** `stop`: true once the request is abandoned (its deadline passed, its client left); a model may then stop early. */
  verify(input: VerifyInput, stop?: () => boolean): Promise<Verification>;
}

/** Resolves an encoder directory to its (shared) loaded encoder. */
export type EncoderAt = (dir: string) => Promise<SentenceEncoder>;

/** Turns a logit into the turn value v ∈ [0, 1]. */
export const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));
