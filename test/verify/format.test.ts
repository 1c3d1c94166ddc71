import t from 'tap';
import { contextText, finalAnswer, fitContext, RESPONSE_FEATURE_NAMES, responseFeatures, taskText } from '../../src/verify/format.js';
import type { DialogueTurn } from '../../src/contracts/verify-turn.js';

const turns: DialogueTurn[] = [
  { role: 'tutor', text: 'What is 12 + 30?' },
  { role: 'student', text: 'I think 32.' },
  { role: 'tutor', text: 'Check the tens.' },
];

t.test("task text follows Traver's order: description, code, dependencies, steps", async (t) => {
  t.equal(
    taskText({ description: 'Sum.', code_context: 'def f():', dependencies: ['a.b', 'c'], solution_steps: ['One.', 'Two.'] }),
    'Sum.\ndef f():\nDependencies: a.b; c\nSteps: One. Two.',
  );
  t.equal(taskText({ description: 'Sum.' }), 'Sum.');
});

t.test('the context is cut from the left: the latest turns stay whole', async (t) => {
  t.same(contextText(turns, 1000), { text: 'Tutor: What is 12 + 30?\nStudent: I think 32.\nTutor: Check the tens.', truncated: false });
  t.same(contextText(turns, 40), { text: 'dent: I think 32.\nTutor: Check the tens.', truncated: true });
  t.same(contextText([], 10), { text: '', truncated: false });
  // fitContext shrinks the window by a fifth at a time until the encoder would not cut it.
  const fitted = fitContext(turns, 1000, (text) => text.length <= 30);
  t.same(fitted, { text: contextText(turns, fitted.text.length).text, truncated: true });
  t.ok(fitted.text.length <= 30 && fitted.text.endsWith('Tutor: Check the tens.'));
  t.same(
    fitContext(turns, 1000, () => true),
    { text: contextText(turns, 1000).text, truncated: false },
  );
  t.same(
    fitContext(turns, 1000, () => false),
    { text: '', truncated: true },
    'ends on an empty context',
  );
});

t.test('hand features of a response, by name', async (t) => {
  const task = { description: 'What is 12 + 30?', solution_steps: ['12 + 30 = 42', 'The answer is 42.'] };
  const named = (r: string, withTask = true) =>
    Object.fromEntries(RESPONSE_FEATURE_NAMES.map((n, i) => [n, responseFeatures(r, withTask ? task : undefined)[i]]));
  t.match(named('Great try! Can you add the tens first? What is 10 + 30?'), {
    addresses_student: 1,
    encouragement: 1,
    invites_action: 1,
    shows_calculation: 1,
    reveals_final_answer: 0,
  });
  t.match(named('The answer is 42.'), {
    addresses_student: 0,
    encouragement: 0,
    invites_action: 0,
    reveals_final_answer: 1,
  });
  t.match(named('The answer is 42.', false), { reveals_final_answer: 0 }, 'no solution steps, no answer to reveal');
  t.same(named('Is the bug on line 3?'), named('The bug is on line 3!'), 'a question mark is worth nothing by itself');
  t.equal(named('abc').log_chars, Math.log1p(3));
  t.equal(
    finalAnswer({ description: 'x', solution_steps: ['Total: 1,250 apples', 'so that is all'] }),
    1250,
    'the last step with a number; thousands separators',
  );
  t.equal(finalAnswer({ description: 'x' }), null);
});
