import { ServiceError } from '../common/errors.js';
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

const OF_BYTES = 'bytes:';

/**
 * A /score-plan request's identity for Idempotency-Key: the SHA-256 of its body's bytes (decoded, if it
 * came compressed). A retry sends the same bytes; the same key with other bytes is a conflict.
 */
export const bytesFingerprint = (sha256: Uint8Array): string =>
  OF_BYTES + Buffer.from(sha256.buffer, sha256.byteOffset, sha256.byteLength).toString('base64url');

/** Whether a stored fingerprint is one of content (`fingerprint`), as /score-plan's receipts were before bytesFingerprint. */
export const ofContent = (stored: string): boolean => !stored.startsWith(OF_BYTES);

/** A request's identity by its content, as JSON: the same key with a different body is a conflict. */
export function fingerprint(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body)).digest('base64url');
}

/**
 * fingerprint(body) from the UTF-8 JSON of its groups in parts, each part the groups' JSON texts joined by
 * commas, without the array's brackets, as the threads that judged them wrote it: the main thread only
 * hashes bytes instead of writing the text, the dearer part, and hashing it. `body.groups` is not read.
 */
export function fingerprintOfParts(body: Record<string, unknown> & { groups: unknown }, parts: readonly Uint8Array[]): string {
  // JSON.stringify writes the keys in order and skips those it cannot write, as it does in the body.
  const keys = Object.keys(body);
  const at = keys.indexOf('groups');
  const text = (ks: string[]) => JSON.stringify(Object.fromEntries(ks.map((k) => [k, body[k]]))).slice(1, -1);
  const before = text(keys.slice(0, at));
  const after = text(keys.slice(at + 1));
  const hash = createHash('sha256').update(`{${before}${before ? ',' : ''}"groups":[`);
  let first = true;
  for (const part of parts) {
    if (part.length === 0) continue;
    if (!first) hash.update(',');
    hash.update(part);
    first = false;
  }
  return hash.update(`]${after ? ',' : ''}${after}}`).digest('base64url');
}

/** Where a key's receipt is kept in its run: per step (or "auto" for step-less requests) and key. */
export function receiptKey(step: number | undefined, idempotencyKey: string): string {
  // The step part has no space, so the first space ends it.
  return `${step ?? 'auto'} ${idempotencyKey}`;
}

/**
 * Replies to counted requests that carried an Idempotency-Key, by receipt id, while they fit in `maxBytes`
 * (least recently used dropped first). Only a shortcut: the receipt itself is in the run store, and an
 * evicted reply — or one counted by another replica — is rebuilt from it, since scoring is deterministic
 * given the step's weights and options.
 */
export class ReplyCache {
  private readonly bodies: LRUCache<string, readonly Uint8Array[]>;

  constructor(maxBytes: number) {
    this.bodies = new LRUCache<string, readonly Uint8Array[]>({ maxSize: maxBytes, sizeCalculation: (body) => Math.max(1, bytesOf(body)) });
  }

  /** The reply's UTF-8 JSON, in the pieces it was written in. */
  get(receiptId: string): readonly Uint8Array[] | undefined {
    return this.bodies.get(receiptId);
  }

  set(receiptId: string, body: readonly Uint8Array[]): void {
    // A reply larger than the whole cache is not kept (lru-cache would refuse it anyway).
    if (bytesOf(body) <= this.bodies.maxSize) this.bodies.set(receiptId, body);
  }
}

const bytesOf = (pieces: readonly Uint8Array[]) => pieces.reduce((n, p) => n + p.byteLength, 0);

/** An Idempotency-Key reused in a run for a request with a different body (409). */
export class IdempotencyConflict extends ServiceError {
  override name = 'IdempotencyConflict';
  constructor(message: string) {
    super('idempotency_conflict', message);
  }
}
