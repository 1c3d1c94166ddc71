/**
 * Traver (arXiv 2502.13311, §3.2), eqs. 1–2: the value of each tutor turn t = 1..T of a dialogue with
 * outcome o ∈ {0, 1}:
 *   w_t = (1 − v_{t−1}) / (d_t + 1) · (2o − 1),  d_t = T − t      (eq. 2)
 *   v_t = max(v_{t−1} + w_t, 0),                  v_0 = 0          (eq. 1)
 * A successful dialogue climbs to v_T = 1; a failed one stays at 0.
 */
export function turnValues(outcome: 0 | 1, turns: number): number[] {
  if (!Number.isInteger(turns) || turns < 0) throw new RangeError(`turns must be a non-negative integer, got ${turns}`);
  const values: number[] = [];
  let v = 0;
  for (let t = 1; t <= turns; t++) {
    const w = ((1 - v) / (turns - t + 1)) * (2 * outcome - 1);
    v = Math.max(v + w, 0);
    values.push(v);
  }
  return values;
}
