import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { VerifyInput } from '../../src/verify/model.js';
import { loadVerifier } from '../../src/verify/verifier.js';
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

t.test('the task and the dialogue are embedded once per request, with the candidates', async (t) => {
  const encoder = await useLite();
  const calls: string[][] = [];
  const embed = encoder.embed.bind(encoder);
  encoder.embed = async (texts) => {
    calls.push([...texts]);
    return embed(texts);
  };
  const v = await loadVerifier(DIR, async () => encoder);
  calls.length = 0;
  const { request } = expected.find((e) => e.request.candidates.length > 3)!;
  const result = await v.verify(request);
  t.equal(calls.length, 1, 'one encoder call');
  t.equal(calls[0]!.length, 2 + request.candidates.length, 'task + dialogue + each candidate');
  t.same(calls[0]!.slice(2), request.candidates);
  t.equal(result.candidates.length, request.candidates.length);
  t.match(result.candidates[0]!.features, { asks_question: Number, reveals_final_answer: Number });
});
