import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { loadVerifier, type VerifyInput } from '../../src/verify/verifier.js';
import { useLite } from '../support/encoder.js';

// The shipped verifier, served as the service serves it, must give the scores training computed for the
// same client requests (models/verifier/expected.json, written by training/train.py from its numpy model).
const DIR = fileURLToPath(new URL('../../models/verifier', import.meta.url));
const expected = JSON.parse(readFileSync(`${DIR}/expected.json`, 'utf8')) as { request: VerifyInput; scores: number[] }[];

t.test('the shipped verifier reproduces its training-time scores on fixed requests', async (t) => {
  const encoder = useLite();
  const v = await loadVerifier(DIR, () => encoder);
  t.match(v.info, { name: 'traver-use-lite-head', kind: 'embedding-head' });
  t.ok(expected.length >= 5, 'MathDial, MRBench and Bridge requests');
  for (const { request, scores } of expected) {
    const got = (await v.verify(request)).candidates.map((c) => c.score);
    t.equal(got.length, scores.length);
    const worst = Math.max(...got.map((s, i) => Math.abs(s - scores[i]!)));
    t.ok(worst < 1e-4, `max |served − trained| = ${worst.toExponential(2)}`);
  }
});
