import { createHash } from 'node:crypto';
import type { RunStepInfoSchema } from '../contracts/runs.js';
import type { ScoringDefaults } from '../scoring/score-groups.js';
import type { z } from 'zod';

/** What a counted request needs to be answered again byte for byte: its step's weights and options. */
export interface Receipt {
  fingerprint: string;
  run: z.infer<typeof RunStepInfoSchema>;
  defaults: ScoringDefaults;
}

const MAX_RECEIPTS = 100_000;

/**
 * Requests that carried an Idempotency-Key, per (run, step, key). Two tiers: the serialized reply, kept
 * while it fits in `maxBytes` (oldest evicted first), and a small receipt per key (the last 100,000 keys)
 * from which an evicted reply is rebuilt — scoring is deterministic given the step's weights and options —
 * so a retry is never counted twice while the process lives. After a restart the open step is gone
 * anyway; a retry of a finalized step is then late and still never folds into the EMA twice.
 */
export class ReplayCache {
  private readonly bodies = new Map<string, string>();
  private readonly receipts = new Map<string, Receipt>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  static fingerprint(body: unknown): string {
    return createHash('sha256').update(JSON.stringify(body)).digest('base64url');
  }

  static key(runId: string, step: number | undefined, idempotencyKey: string): string {
    return `${runId}\u0000${step ?? 'auto'}\u0000${idempotencyKey}`;
  }

  get(key: string): { receipt: Receipt; body: string | undefined } | undefined {
    const receipt = this.receipts.get(key);
    return receipt && { receipt, body: this.bodies.get(key) };
  }

  set(key: string, receipt: Receipt, body: string): void {
    this.receipts.delete(key);
    this.receipts.set(key, receipt);
    if (this.receipts.size > MAX_RECEIPTS) this.drop(this.receipts.keys().next().value!);
    this.dropBody(key);
    const bytes = body.length * 2;
    if (bytes > this.maxBytes) return;
    this.bodies.set(key, body);
    this.bytes += bytes;
    for (const k of this.bodies.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.dropBody(k);
    }
  }

  dropRun(runId: string): void {
    for (const k of [...this.receipts.keys()]) if (k.startsWith(`${runId}\u0000`)) this.drop(k);
  }

  private drop(key: string): void {
    this.receipts.delete(key);
    this.dropBody(key);
  }

  private dropBody(key: string): void {
    const body = this.bodies.get(key);
    if (body !== undefined) {
      this.bodies.delete(key);
      this.bytes -= body.length * 2;
    }
  }
}
