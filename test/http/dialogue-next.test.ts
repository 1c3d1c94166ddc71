import t from 'tap';
import { testApp } from '../support/app.js';

const state = { current_step: 0, steps_total: 2, needs_clarification: false, finished: false, message_count: 1, max_interactions: 10 };

t.test('POST /dialogue/next: the next node and state', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/dialogue/next', payload: { state, last: { role: 'student', text: 'Why?' } } });
  t.equal(res.statusCode, 200);
  t.match(res.json(), { next: 'teacher', state: { needs_clarification: true, message_count: 2, current_step: 0 }, reason: /clarify/ });
  const bad = await app.inject({
    method: 'POST',
    url: '/dialogue/next',
    payload: { state: { ...state, steps_total: 0 }, last: { role: 'evaluator', text: '' } },
  });
  t.equal(bad.statusCode, 400);
  t.same(
    bad
      .json()
      .issues.map((i: { path: string }) => i.path)
      .sort(),
    ['$.last.role', '$.state.steps_total'],
  );
});
