// Hard negatives for the verifier (training/hard-negatives.ts): questions that recur across problems are the
// tails, the bench's own tail never is, and only a candidate another of its context outranks gets one.
import t from 'tap';
import { genericQuestions, hardNegatives } from '../../training/hard-negatives.js';
import type { SourceExample } from '../../training/datasets.js';

t.test('a tail is a short question without a number asked about two problems at least; the bench’s tail is held out', async (t) => {
  const tails = genericQuestions([
    { problem: 'apples', turns: ['Good. Does that step make sense? How many apples are left?', 'Can you see why?'] },
    { problem: 'trains', turns: ['Does that step make sense?', 'What is 3 + 4?', 'Can you see why?'] },
    { problem: 'apples', turns: ['How many apples are left?'] },
    { problem: 'boats', turns: ['Could you please walk me through every single step of your solution?', 'What is 3 + 4?'] },
  ]);
  t.same(tails, ['Does that step make sense?']);
});

t.test('each candidate another outranks, not ending in a question already, gets a tail; the best keep none', async (t) => {
  const e: SourceExample = {
    source: 'mrbench',
    group: 'mr:1',
    task: { description: 'Add 48 and 24.' },
    context: [{ role: 'student', text: 'I got 62.' }],
    candidates: [
      { text: 'Check the tens: what is 40 + 20?', target: 1 },
      { text: 'The answer is 72.', target: 0 },
      { text: 'Try again?', target: 0 },
      { text: 'Look at the ones.', target: 0.5 },
    ],
  };
  const tails = ['Does that make sense?', 'Do you see?'];
  const hard = hardNegatives(e, tails);
  t.same(
    hard.map((h) => h.of),
    [1, 3],
  );
  for (const h of hard) {
    const base = e.candidates[h.of]!.text;
    t.ok(h.text.startsWith(`${base} `) && tails.includes(h.text.slice(base.length + 1)), h.text);
  }
  t.same(hardNegatives(e, tails), hard, 'the same tails each run');
});
