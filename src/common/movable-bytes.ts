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

// A buffer of sharedBytes is kept for the next large body once its request is done (reuseShared): a fresh
// one has its pages faulted in one by one as the body is copied into it, which cost the main thread far
// more than the copying. One is kept, the largest given back, until the resting pool gives memory back
// (dropSpareShared). Sizes are rounded up so that a body a little larger than the last still fits.
let spare: SharedArrayBuffer | undefined;
const SHARED_STEP = 1 << 20;

/**
 * `size` bytes that the workers share, in a buffer of at least MAPPED_BYTES: each reads the run of them it
 * is given in place. Moved, a run had to be copied out first, into fresh pages faulted in one by one. They
 * are zeroes, or an earlier body's bytes when its buffer is reused: the caller writes all `size` before
 * any thread reads them.
 */
export function sharedBytes(size: number): Uint8Array<SharedArrayBuffer> {
  if (spare !== undefined && spare.byteLength >= size) {
    const reused = spare;
    spare = undefined;
    return new Uint8Array(reused, 0, size);
  }
  return new Uint8Array(new SharedArrayBuffer(Math.max(Math.ceil(size / SHARED_STEP) * SHARED_STEP, MAPPED_BYTES)), 0, size);
}

/** A buffer of sharedBytes given back once no thread reads it any more, for the next body to reuse. */
export function reuseShared(bytes: Uint8Array<SharedArrayBuffer>): void {
  if (spare === undefined || bytes.buffer.byteLength > spare.byteLength) spare = bytes.buffer;
}

/** Lets the kept buffer go, for the resting pool to give its pages back. */
export function dropSpareShared(): void {
  spare = undefined;
}

/** The pieces one after the other in movableBytes, and where each ends. */
export function joinMovable(pieces: readonly Uint8Array[]): { bytes: Uint8Array<ArrayBuffer>; ends: number[] } {
  let end = 0;
  const ends = pieces.map((p) => (end += p.length));
  const bytes = movableBytes(end);
  for (const [i, p] of pieces.entries()) bytes.set(p, ends[i]! - p.length);
  return { bytes, ends };
}

const encoder = new TextEncoder();

/** Texts written as UTF-8 one after another into a movableBytes buffer that grows as needed. */
export class MovableWriter {
  // The whole buffer: what was written is its first #size bytes.
  #bytes = new Uint8Array(movableBytes(0).buffer);
  #size = 0;

  /** Writes `text`; where its bytes lie. */
  write(text: string): [start: number, end: number] {
    const start = this.#size;
    // UTF-8 takes at most three bytes per UTF-16 unit.
    if (this.#bytes.length - start < text.length * 3) this.#grow(start + text.length * 3);
    this.#size += encoder.encodeInto(text, this.#bytes.subarray(start)).written;
    return [start, this.#size];
  }

  /** How many bytes were written. */
  get size(): number {
    return this.#size;
  }

  /** What was written, in a buffer of its own to move. */
  get bytes(): Uint8Array<ArrayBuffer> {
    return new Uint8Array(this.#bytes.buffer, 0, this.#size);
  }

  #grow(least: number): void {
    const grown = new Uint8Array(movableBytes(Math.max(least, 2 * this.#bytes.length)).buffer);
    grown.set(this.#bytes.subarray(0, this.#size));
    this.#bytes = grown;
  }
}
