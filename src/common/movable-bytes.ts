// glibc maps an allocation at least as large as its mmap threshold (128 KiB, fixed by `npm start`) on its own
// and unmaps it when it is freed; a smaller one lives in a malloc arena, which keeps its pages. A buffer
// moved between threads is freed by another thread than the one that made it, late (when that thread's
// garbage collector finds it), so in an arena it is what holds memory after load: the 64×8 request's
// moved parts and explanations, small as they are, left RSS markedly higher after a soak.
const MAPPED_BYTES = 128 * 1024;

/**
 * `size` zeroed bytes in a buffer of at least MAPPED_BYTES, so that it is mapped and unmapped on its own.
 * Only the pages written are faulted in. Move the view's `buffer`: the view itself is `size` long.
 */
export function movableBytes(size: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Math.max(size, MAPPED_BYTES)).subarray(0, size);
}

/** The pieces one after the other in movableBytes, and where each ends. */
export function joinMovable(pieces: readonly Uint8Array[]): { bytes: Uint8Array<ArrayBuffer>; ends: number[] } {
  let end = 0;
  const ends = pieces.map((p) => (end += p.length));
  const bytes = movableBytes(end);
  for (const [i, p] of pieces.entries()) bytes.set(p, ends[i]! - p.length);
  return { bytes, ends };
}
