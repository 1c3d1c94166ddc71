import * as ort from 'onnxruntime-node';

// Outside the service (scripts, training, tests using an encoder directly) onnxruntime's telemetry is off
// as well, unless ORT_DISABLE_TELEMETRY says otherwise (docs/configuration.md). Read by the runtime when
// its first session starts, which is after this module has run.
process.env.ORT_DISABLE_TELEMETRY ??= '1';

/**
 * Options of every ONNX session the service creates. `threads` bounds the intra-op threads (0: the
 * runtime's default, every core): a pool worker gets one, since the pool itself keeps every core busy.
 */
export function sessionOptions(threads: number | undefined): ort.InferenceSession.SessionOptions {
  return { graphOptimizationLevel: 'all', ...(threads ? { intraOpNumThreads: threads, interOpNumThreads: 1 } : {}) };
}

/**
 * Token id rows as one right-padded batch: ids and attention mask, [rows, length] int64. At least one
 * position, so an empty text is a fully masked row, as in the reference graphs.
 */
export function paddedIds(rows: readonly (readonly number[])[]): { ids: ort.Tensor; mask: ort.Tensor } {
  const length = Math.max(1, ...rows.map((r) => r.length));
  const ids = new BigInt64Array(rows.length * length);
  const mask = new BigInt64Array(rows.length * length);
  rows.forEach((row, b) => {
    row.forEach((id, t) => {
      ids[b * length + t] = BigInt(id);
      mask[b * length + t] = 1n;
    });
  });
  return { ids: new ort.Tensor('int64', ids, [rows.length, length]), mask: new ort.Tensor('int64', mask, [rows.length, length]) };
}
