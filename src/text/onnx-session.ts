import type { InferenceSession } from 'onnxruntime-node';

/**
 * Options of every ONNX session the service creates. `threads` bounds the intra-op threads (0: the
 * runtime's default, every core): a pool worker gets one, since the pool itself keeps every core busy.
 */
export function sessionOptions(threads: number | undefined): InferenceSession.SessionOptions {
  return { graphOptimizationLevel: 'all', ...(threads ? { intraOpNumThreads: threads, interOpNumThreads: 1 } : {}) };
}
