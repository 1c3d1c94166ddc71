import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** A request's identity for Idempotency-Key: the same key with a different body is a conflict. */
export function fingerprint(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body)).digest('base64url');
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
  private readonly bodies: LRUCache<string, string>;

  constructor(maxBytes: number) {
    this.bodies = new LRUCache<string, string>({ maxSize: maxBytes, sizeCalculation: (body) => Math.max(1, body.length * 2) });
  }

  get(receiptId: string): string | undefined {
    return this.bodies.get(receiptId);
  }

  set(receiptId: string, body: string): void {
    // A reply larger than the whole cache is not kept (lru-cache would refuse it anyway).
    if (body.length * 2 <= this.bodies.maxSize) this.bodies.set(receiptId, body);
  }
}

/** An Idempotency-Key reused in a run for a request with a different body (409). */
export class IdempotencyConflict extends Error {
  override name = 'IdempotencyConflict';
}
