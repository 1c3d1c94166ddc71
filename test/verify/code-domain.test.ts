import t from 'tap';
import { codeDomain, rescaled } from '../../src/verify/code-domain.js';

t.test('the code domain: reference_code, else a fenced block of the student, else none', async (t) => {
  const block = { role: 'student' as const, text: 'mine:\n```\nreturn x\n```' };
  t.equal(codeDomain({ description: 'd', reference_code: 'return y' }, []), 'with_reference');
  t.equal(codeDomain({ description: 'd' }, [block]), 'student_code_only');
  t.equal(codeDomain({ description: 'd' }, [{ role: 'tutor', text: '```\nreturn y\n```' }]), null, "the tutor's code is not the student's");
  t.equal(codeDomain({ description: 'What is 3 + 4?' }, [{ role: 'student', text: 'x = 7' }]), null, 'an equation is not code');
});

t.test('rescaled is σ(a·logit(p) + c): the identity at (1, 0), monotone, finite at 0 and 1', async (t) => {
  for (const p of [0.01, 0.2, 0.5, 0.93]) t.ok(Math.abs(rescaled(p, { a: 1, c: 0 }) - p) < 1e-12);
  t.ok(Math.abs(rescaled(0.5, { a: 3, c: Math.log(3) }) - 0.75) < 1e-12, 'logit 0 → σ(c)');
  t.ok(rescaled(0.3, { a: 0.5, c: 0 }) < rescaled(0.4, { a: 0.5, c: 0 }));
  for (const p of [0, 1]) t.ok(Number.isFinite(rescaled(p, { a: 2, c: 0 })));
});
