// Answer revealing read against the task (src/verify/reveals.ts): pasted reference code survives renaming and
// reformatting, the signature the student was given is not the answer, a step stated (not asked) is, and so
// is an answer announced as one. Each finding's span is the candidate text that did it.
import t from 'tap';
import { revealProbability, revealsSolution } from '../../src/verify/reveals.js';

const description = 'def running_total(xs: list[int]) -> list[int]:\n    """Return the running totals of xs."""';
const reference_code = `def running_total(xs: list[int]) -> list[int]:
    total = 0
    out = []
    for x in xs:
        total += x  # the sum so far
        out.append(total)
    return out`;
const solution_steps = ['Keep a sum of the items seen so far', 'Append the sum to the output after adding each item'];
const task = { description, reference_code, solution_steps };

t.test('pasted reference code is found, fenced, bare, renamed and reformatted, with its span', async (t) => {
  const fenced = `Here you go:\n\`\`\`python\n${reference_code}\n\`\`\``;
  const r = revealsSolution(fenced, task);
  t.equal(r?.kind, 'reference_code');
  t.ok(r!.overlap >= 0.9, String(r?.overlap));
  t.match(fenced.slice(...r!.span), /total = 0[\s\S]*return out/);
  t.equal(revealsSolution(reference_code, task)?.kind, 'reference_code', 'bare');
  const renamed = 'Try:\n```\nacc=0\nres=[ ]\nfor item in xs :\n\n    acc+=item\n\n    res.append( acc )\nreturn res\n```';
  t.equal(revealsSolution(renamed, task)?.kind, 'reference_code', 'renamed and reformatted');
  t.equal(
    revealsSolution('Just write `out.append(total)` inside the loop after `total += x`.', task),
    null,
    'two short fragments are idioms, not the solution',
  );
});

t.test('the signature the student was given, a question about it or a short idiom give nothing away', async (t) => {
  t.equal(revealsSolution(`You are implementing\n\`\`\`\n${description}\n\`\`\``, task), null);
  t.equal(revealsSolution('What should running_total([1, 2, 3]) return?', task), null);
  t.equal(revealsSolution('```\nfor x in xs:\n    pass\n```', task), null);
});

t.test('a solution step stated as what to do is found; asked as a question it guides', async (t) => {
  const told = 'Keep a sum of all the items you have seen so far.';
  const r = revealsSolution(told, task);
  t.same([r?.kind, r?.step, r?.span], ['solution_step', 0, [0, told.length]]);
  t.equal(revealsSolution('What if you kept a sum of the items seen so far?', task), null);
});

t.test('an answer announced as one is found, with the announcement and what follows', async (t) => {
  const c = 'No, the answer is [1, 3, 6]. Well done anyway.';
  const r = revealsSolution(c, { solution_steps: [] });
  t.equal(r?.kind, 'stated_answer');
  t.equal(c.slice(...r!.span), 'the answer is [1, 3, 6].');
  t.equal(revealsSolution('Here is the complete solution, just copy it.', {})?.kind, 'stated_answer');
  t.equal(revealsSolution('What do you think the answer is?', {}), null);
  const done = 'Just write `return jnp.where(x > 0, x, 0)` and you are done.';
  t.equal(revealsSolution(done, {})?.kind, 'stated_answer', 'code handed over as all there is to do');
  t.equal(revealsSolution('Have a look at `jnp.where`; it may help.', {}), null, 'a pointer to an API is a hint');
});

t.test('reveals_answer is at least 0.5 once the solution is found given, the model’s own otherwise', async (t) => {
  t.equal(revealProbability(0.04, null), 0.04);
  t.equal(revealProbability(0.04, { kind: 'stated_answer', span: [0, 1], overlap: 1 }), 1);
  t.equal(revealProbability(0.9, { kind: 'reference_code', span: [0, 1], overlap: 0.4 }), 0.9);
  t.equal(revealProbability(undefined, { kind: 'reference_code', span: [0, 1], overlap: 0.4 }), 0.7);
});
