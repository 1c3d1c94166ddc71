/**
 * Seeded pseudo-random numbers for reproducible EM restarts and synthetic data.
 * mulberry32: a 32-bit state generator, fast and statistically good enough for initialisation and simulation
 * (not for cryptography).
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}
