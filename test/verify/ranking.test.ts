import t from 'tap';
import { rankCandidates } from '../../src/verify/ranking.js';

t.test('candidates by score, best first; ties keep request order', async (t) => {
  t.same(rankCandidates([0.2, 0.9, 0.5]), [1, 2, 0]);
  t.same(rankCandidates([0.5, 0.7, 0.5, 0.7]), [1, 3, 0, 2]);
  t.same(rankCandidates([0.3]), [0]);
});
