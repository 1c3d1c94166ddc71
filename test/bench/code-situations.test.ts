// The equivalent rewrites of the reveal bench's `equivalent` kinds (bench/code-situations.ts): each applies
// only where the program keeps its meaning.
import t from 'tap';
import { equivalent } from '../../bench/code-situations.js';

t.test('a comparison of two tokens from its other side, an augmented assignment spelled out, range from 0', async (t) => {
  t.equal(
    equivalent('def f(xs, n):\n    total = 0\n    for i in range(n):\n        if i <= n:\n            total += xs[i] * 2\n    return total', 'python'),
    'def f(xs, n):\n    total = 0\n    for i in range(0, n):\n        if n >= i:\n            total = total + (xs[i] * 2)\n    return total',
  );
  t.equal(
    equivalent('function f(x, hi) {\n  if (x > hi) {\n    return hi;\n  }\n  return x;\n}', 'javascript'),
    'function f(x, hi) {\n  if (hi < x) {\n    return hi;\n  }\n  return x;\n}',
  );
  t.equal(equivalent('SELECT id FROM orders\nWHERE total >= 100', 'sql'), 'SELECT id FROM orders\nWHERE 100 <= total');
});

t.test('no rewrite where an operand is longer than a token, or a call takes more than one argument', async (t) => {
  t.equal(equivalent('def f(a, b, c):\n    return a + b < c', 'python'), null, 'a + b < c is not b < c');
  t.equal(equivalent('def f(a, b):\n    return a.x < b', 'python'), null, 'an attribute');
  t.equal(equivalent('def f(a, b):\n    return a < b[0]', 'python'), null, 'a subscript');
  t.equal(equivalent('def f(n):\n    return list(range(1, n))', 'python'), null, 'range with a start already');
});
