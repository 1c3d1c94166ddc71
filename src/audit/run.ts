import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { AuditAggregator, type AuditSummary } from './aggregate.js';
import type { RecordEvaluator } from './evaluate.js';
import { parseLine, recordOf, type LineOutcome } from './record.js';

export interface AuditStreamOptions {
  evaluator: RecordEvaluator;
  /** Called every `progressEvery` records and once at the end with the records seen so far. */
  onProgress?: (lines: number) => void;
  progressEvery?: number;
  /** Receives one JSON line per input record that was scored or malformed (not for blank lines). */
  records?: Writable;
}

/**
 * Reads JSONL line by line and keeps only running aggregates: memory is bounded by the longest line and
 * the aggregator's fixed-size state, not by the number of plans.
 */
export async function auditStream(input: Readable, opts: AuditStreamOptions): Promise<AuditSummary> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  return auditOutcomes(
    (async function* () {
      let n = 0;
      for await (const text of lines) yield parseLine(text, ++n);
    })(),
    opts,
  );
}

/** The records of one JSON document: the elements of an array, or the document itself; numbered from 1. */
export function auditDocument(document: unknown, opts: AuditStreamOptions): Promise<AuditSummary> {
  const items = Array.isArray(document) ? document : [document];
  return auditOutcomes(
    items.map((value, i) => recordOf(value, i + 1)),
    opts,
  );
}

async function auditOutcomes(outcomes: AsyncIterable<LineOutcome> | Iterable<LineOutcome>, opts: AuditStreamOptions): Promise<AuditSummary> {
  const agg = new AuditAggregator();
  const every = opts.progressEvery ?? 1000;
  let n = 0;
  for await (const outcome of outcomes) {
    n++;
    let out: object | null = null;
    if (outcome.kind === 'blank') agg.addBlank();
    else if (outcome.kind === 'malformed') {
      agg.addMalformed(outcome.line, outcome.reason);
      out = { line: n, malformed: outcome.reason };
    } else {
      const { record } = outcome;
      const result = opts.evaluator.evaluate(record);
      agg.addResult(result, record.intent);
      const e = result.evaluation;
      out = {
        line: n,
        id: record.id,
        intent: record.intent ?? null,
        accepted: !e.gate.failed,
        reasons: e.gate.reasons,
        raw: { struct: e.raw.struct, pers: result.hasProfile ? e.raw.pers : null, ped: e.raw.ped },
        score: result.score,
        topology: e.topology,
      };
    }
    // Respect the writer's backpressure, or a slow disk would buffer every record in memory.
    if (out && opts.records && !opts.records.write(`${JSON.stringify(out)}\n`)) await once(opts.records, 'drain');
    if (n % every === 0) opts.onProgress?.(n);
  }
  opts.onProgress?.(n);
  return agg.summary();
}
