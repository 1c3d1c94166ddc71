import t from 'tap';
import { fixOf, findSignature, Names } from '../../../src/verify/code/fix.js';
import { codeTokenizer } from '../../../src/verify/code/grammars.js';

const tokenizer = await codeTokenizer();
const read = (code: string) => tokenizer.tokens(code, 'python').tokens;

t.test('names the code binds are any name; names it only uses are themselves', async (t) => {
  const ref = read('def f(xs):\n    n = len(xs)\n    return n - 1');
  const names = new Names(ref);
  t.same(
    ref.map((x) => names.norm(x)),
    ['def', 'ID', '(', 'ID', ')', ':', 'ID', '=', 'len', '(', 'ID', ')', 'return', 'ID', '-', '1'],
  );
  t.equal(names.norm(read("'a'")[0]!), names.norm(read('"a"')[0]!), 'quotes do not matter');
});

t.test('the fix: each change with the reference tokens that place it, widened where the attempt has the same text elsewhere', async (t) => {
  const attempt = read('def f(a, b):\n    x = g(a, dim=-1)\n    y = g(b, dim=-1)\n    return x + y');
  const reference = read('def f(a, b):\n    x = g(a, dim=-1)\n    y = g(b, dim=1)\n    return x - y');
  const hunks = fixOf(attempt, reference, new Names(attempt, reference));
  t.same(
    hunks.map((h) => [h.signature?.join(' '), h.lines]),
    [
      ['dim = 1 )', [3]],
      ['ID - ID', [4]],
    ],
  );
  t.equal(
    findSignature(
      read('z = g(q, dim=1)').map((x) => ({ form: x.text, name: x.kind === 'name' })),
      hunks[0]!.signature!,
    ),
    6,
  );
});

t.test('a swapped name, invisible once names are any name, is matched as written', async (t) => {
  const attempt = read('def f(a, b):\n    return a');
  const reference = read('def f(a, b):\n    return b');
  const [h] = fixOf(attempt, reference, new Names(attempt, reference));
  t.same([h!.exactNames, h!.signature], [true, ['return', 'b']]);
});

t.test('a comparison of two tokens is also found read from its other side, as written, unless the attempt holds that', async (t) => {
  const attempt = read('def f(i, n):\n    return i < n');
  const reference = read('def f(i, n):\n    return i <= n');
  const [h] = fixOf(attempt, reference, new Names(attempt, reference));
  t.same(
    [h!.signature, h!.mirror],
    [
      ['ID', '<=', 'ID'],
      ['n', '>=', 'i'],
    ],
  );
  const holds = read('def f(i, n):\n    assert n >= i\n    return i < n');
  const fixed = read('def f(i, n):\n    assert n >= i\n    return i <= n');
  t.equal(fixOf(holds, fixed, new Names(holds, fixed))[0]!.mirror, null, 'the attempt has `n >= i` already');
  const call = read('def f(xs, n):\n    return len(xs) < n');
  const called = read('def f(xs, n):\n    return len(xs) <= n');
  t.equal(fixOf(call, called, new Names(call, called))[0]!.mirror, null, 'an operand longer than a token: no mirror');
});

t.test('a signature the attempt holds by the rule candidates are read with (a builtin is any name there) is widened', async (t) => {
  const attempt = read('def f(n, m):\n    if n is None or int(m):\n        return 1\n    if n is None and m:\n        return 2');
  const reference = read('def f(n, m):\n    if n is None or int(m):\n        return 1\n    if n is None or m:\n        return 2');
  t.same(
    fixOf(attempt, reference, new Names(attempt, reference)).map((h) => h.signature),
    [['is', 'None', 'or', 'ID', ':']],
    "`None or ID` would match the attempt's own `None or int`",
  );
});
