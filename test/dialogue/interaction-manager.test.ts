import t from 'tap';
import { nextNode, type DialogueState } from '../../src/dialogue/interaction-manager.js';

const start: DialogueState = { current_step: 0, steps_total: 2, needs_clarification: false, finished: false, message_count: 0, max_interactions: 20 };

t.test('Algorithm 1 walk-through: teach, clarify on a question, move on, conclude', async (t) => {
  let s = start;
  const step = (role: 'teacher' | 'learner', text: string) => {
    const r = nextNode(s, { role, text });
    s = r.state;
    return r.next;
  };
  t.equal(step('teacher', 'Step 1: mix flour and water.'), 'learner');
  t.equal(step('learner', 'How much water?'), 'teacher');
  t.match(s, { current_step: 0, needs_clarification: true, message_count: 2 });
  t.equal(step('teacher', 'About 200 ml.'), 'learner');
  t.equal(step('learner', 'Done, mixed.'), 'teacher');
  t.match(s, { current_step: 1, needs_clarification: false });
  t.equal(step('teacher', 'Step 2: knead for ten minutes.'), 'learner');
  t.equal(step('learner', 'Kneaded.'), 'teacher');
  t.match(s, { current_step: 2, finished: false });
  t.equal(step('teacher', 'Well done, the dough is ready.'), 'end');
  t.match(s, { finished: true, message_count: 7 });
  t.equal(nextNode(s, { role: 'learner', text: 'thanks' }).next, 'end', 'once finished, always end');
});

t.test('the finished token and the interaction limit end the conversation', async (t) => {
  t.match(nextNode(start, { role: 'learner', text: 'I am FINISHED' }), { next: 'end', state: { finished: true } });
  const r = nextNode({ ...start, message_count: 19 }, { role: 'teacher', text: 'Step 1' });
  t.match(r, { next: 'end', state: { finished: true, message_count: 20 }, reason: /max_interactions/ });
  t.match(nextNode(start, { role: 'learner', text: "I don't understand the first part" }), { next: 'teacher', state: { needs_clarification: true } });
});
