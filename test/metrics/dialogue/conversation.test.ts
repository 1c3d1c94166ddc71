import t from 'tap';
import { completed, diversity, normalizeRole, questionRate, words, type Message } from '../../../src/metrics/dialogue/conversation.js';

const chat: Message[] = [
  { role: 'teacher', text: 'First, preheat the oven to 180 degrees.' },
  { role: 'learner', text: 'Why that temperature?' },
  { role: 'teacher', text: 'It sets the crust. Next, preheat the oven tray.' },
  { role: 'learner', text: 'Okay, done.' },
  { role: 'teacher', text: 'Great, we are FINISHED.' },
];

t.test('Question: share of learner utterances with a question mark', async (t) => {
  t.equal(questionRate(chat), 0.5);
  t.equal(questionRate(chat.filter((m) => m.role === 'teacher')), null, 'no learner turn, no rate');
});

t.test('Completion: the last message ends with the finished token, any case', async (t) => {
  t.equal(completed(chat), true);
  t.equal(completed([{ role: 'learner', text: '**Finished**' }]), true);
  t.equal(completed([{ role: 'teacher', text: 'We finished step one. Next?' }]), false, 'finished must close the conversation');
  t.equal(completed([{ role: 'teacher', text: 'unfinished' }]), false);
  t.equal(completed([]), false);
});

t.test('Diversity: distinct / all teacher bigrams', async (t) => {
  // Teacher bigrams: "first preheat, preheat the, the oven, oven to, to 180, 180 degrees" (6);
  // "it sets, sets the, the crust, crust next, next preheat, preheat the, the oven, oven tray" (8; 2 repeats);
  // "great we, we are, are finished" (3). 17 in all, 15 distinct.
  t.same(diversity(chat), { value: 15 / 17, distinct: 15, total: 17 });
  t.same(diversity([{ role: 'learner', text: 'only the learner speaks' }]), { value: null, distinct: 0, total: 0 });
  t.same(words("It's 180°C, isn't it?"), ["it's", '180', 'c', "isn't", 'it']);
});

t.test('roles: tutor and student are teacher and learner', async (t) => {
  t.same(['Teacher', 'tutor', 'LEARNER', 'student', 'evaluator'].map(normalizeRole), ['teacher', 'teacher', 'learner', 'learner', null]);
});
