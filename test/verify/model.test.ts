import t from 'tap';
import { joinVerifications, type Verification } from '../../src/verify/model.js';

const part = (scores: number[], truncated: Partial<Verification['truncated']> = {}): Verification => ({
  candidates: scores.map((score) => ({ score, logit: Math.log(score / (1 - score)) })),
  truncated: { task: false, context: false, candidates: [], ...truncated },
});

t.test('parts of a request join in order, truncated candidates renumbered', async (t) => {
  const joined = joinVerifications([part([0.1, 0.2, 0.3], { candidates: [1] }), part([0.4, 0.5], { candidates: [0, 1], context: true })]);
  t.same(
    joined.candidates.map((c) => c.score),
    [0.1, 0.2, 0.3, 0.4, 0.5],
  );
  t.same(joined.truncated, { task: false, context: true, candidates: [1, 3, 4] });
  t.same(joinVerifications([part([0.7], { task: true })]), part([0.7], { task: true }), 'one part is itself');
});
