import t from 'tap';
import { rankCandidates } from '../../src/verify/ranking.js';

t.test('candidates by score, best first; ties keep request order', async (t) => {
  t.same(rankCandidates([0.2, 0.9, 0.5]), [1, 2, 0]);
  t.same(rankCandidates([0.5, 0.7, 0.5, 0.7]), [1, 3, 0, 2]);
  t.same(rankCandidates([0.3]), [0]);
});

t.test('a candidate that reveals the solution ranks after every one that does not, whatever its score', async (t) => {
  t.same(rankCandidates([0.9, 0.2, 0.5], [true, false, false]), [2, 1, 0]);
  t.same(rankCandidates([0.9, 0.2], [true, true]), [0, 1], 'among revealing ones, by score');
  t.same(rankCandidates([0.9, 0.2], [false, false]), [0, 1]);
});

t.test('a candidate that misdirects ranks after every guiding one and before every revealing one', async (t) => {
  t.same(rankCandidates([0.9, 0.8, 0.1], [false, false, false], [true, false, false]), [1, 2, 0]);
  t.same(rankCandidates([0.9, 0.8, 0.1], [true, false, false], [false, true, false]), [2, 1, 0]);
});

t.test('with the fix known, a candidate aimed at the bug ranks before every other that neither misdirects nor reveals', async (t) => {
  // scores: off topic 0.9, a question at the buggy line 0.3, a wrong pointer 0.95, the fix pasted 0.99
  t.same(rankCandidates([0.9, 0.3, 0.95, 0.99], [false, false, false, true], [false, false, true, false], [false, true, false, false]), [1, 0, 2, 3]);
  t.same(rankCandidates([0.2, 0.8], [], [], [true, true]), [1, 0], 'among guiding ones, by score');
  t.same(rankCandidates([0.9, 0.3], [true, false], [], [true, false]), [1, 0], 'revealing outranks guiding: it comes last');
});
