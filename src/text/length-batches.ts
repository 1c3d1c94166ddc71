/**
 * Cuts texts, sorted by token count, into encoder runs so that the tokens computed (padding included)
 * plus `runCost` per run are fewest: padding many short candidates to a long task text's length was most
 * of a /verify-turn request's encoder time. Returns [start, end) ranges of at most `maxRun` texts each.
 */
export function lengthBatches(sortedLengths: readonly number[], maxRun: number, runCost: number): [number, number][] {
  const n = sortedLengths.length;
  // best[i]: the least cost of the first i texts; from[i]: where the last run of that cost starts.
  const best = new Float64Array(n + 1);
  const from = new Int32Array(n + 1);
  for (let i = 1; i <= n; i++) {
    best[i] = Number.POSITIVE_INFINITY;
    // A run of texts j..i-1 is padded to the longest, the last, since they are sorted.
    for (let j = Math.max(0, i - maxRun); j < i; j++) {
      const cost = best[j]! + runCost + (i - j) * Math.max(1, sortedLengths[i - 1]!);
      if (cost < best[i]!) {
        best[i] = cost;
        from[i] = j;
      }
    }
  }
  const runs: [number, number][] = [];
  for (let i = n; i > 0; i = from[i]!) runs.push([from[i]!, i]);
  return runs.reverse();
}
