import t from 'tap';
import { turnValues } from '../../training/turn-values.js';

t.test('Traver eqs. 1–2 against hand-computed values', async (t) => {
  // o = 1, T = 3: w1 = 1/3 → v1 = 1/3; w2 = (2/3)/2 → v2 = 2/3; w3 = (1/3)/1 → v3 = 1
  const v = turnValues(1, 3);
  [1 / 3, 2 / 3, 1].forEach((x, i) => {
    t.ok(Math.abs(v[i]! - x) < 1e-12, `v${i + 1} = ${v[i]}`);
  });
  // T = 4: v_t = t / 4
  t.same(turnValues(1, 4), [0.25, 0.5, 0.75, 1]);
  // o = 0: every w is ≤ 0 and v is clipped at 0
  t.same(turnValues(0, 5), [0, 0, 0, 0, 0]);
  t.same(turnValues(1, 1), [1]);
  t.same(turnValues(1, 0), []);
  t.throws(() => turnValues(1, -1), RangeError);
  t.throws(() => turnValues(1, 2.5), RangeError);
});

t.test('a successful dialogue rises monotonically to 1', async (t) => {
  for (let T = 1; T <= 30; T++) {
    const v = turnValues(1, T);
    t.equal(v.length, T);
    t.ok(
      v.every((x, i) => i === 0 || x > v[i - 1]!),
      `T = ${T} increasing`,
    );
    t.ok(Math.abs(v[T - 1]! - 1) < 1e-12, `T = ${T} ends at 1`);
  }
});
