import { createHash } from 'node:crypto';

interface Entry {
  fingerprint: string;
  body: string;
  bytes: number;
}

/**
 * Responses to requests that carried an Idempotency-Key, per (run, step, key), so a retried request gets the
 * same body and is not counted again. In memory and bounded (oldest evicted first): a retry that outlives
 * its entry, or a restart, is scored again as a late request of an already finalized step, which still
 * never folds into the EMA twice.
 */
export class ReplayCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  static fingerprint(body: unknown): string {
    return createHash('sha256').update(JSON.stringify(body)).digest('base64url');
  }

  static key(runId: string, step: number | undefined, idempotencyKey: string): string {
    return `${runId}\u0000${step ?? 'auto'}\u0000${idempotencyKey}`;
  }

  get(key: string): Entry | undefined {
    return this.entries.get(key);
  }

  set(key: string, fingerprint: string, body: string): void {
    const bytes = body.length * 2;
    if (bytes > this.maxBytes) return;
    this.delete(key);
    this.entries.set(key, { fingerprint, body, bytes });
    this.bytes += bytes;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= e.bytes;
    }
  }

  dropRun(runId: string): void {
    for (const k of [...this.entries.keys()]) if (k.startsWith(`${runId}\u0000`)) this.delete(k);
  }

  private delete(key: string): void {
    const e = this.entries.get(key);
    if (e) {
      this.entries.delete(key);
      this.bytes -= e.bytes;
    }
  }
}
