import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { responseFeatures } from '../../src/verify/format.js';
import { sigmoid } from '../../src/verify/model.js';
import { loadVerifier } from '../../src/verify/verifier.js';
import { recordEmbeds, useLite } from '../support/encoder.js';

// A head that reads the candidates as token ids (`response_input: tokens`, as a model with its own
// fine-tuned encoder does) and has a `dimensions` output: test/fixtures/tiny-tokens-head/make.py.
const DIR = fileURLToPath(new URL('../fixtures/tiny-tokens-head', import.meta.url));
const w = JSON.parse(readFileSync(`${DIR}/weights.json`, 'utf8')) as { E: number[]; A: number; C: number };

t.test('a tokens head gets each candidate as the shared tokenizer ids, padded, and its dimensions are returned', async (t) => {
  const encoder = await useLite();
  const embedded = recordEmbeds(encoder);
  const v = await loadVerifier(DIR, async () => encoder);
  embedded.length = 0;
  const task = { description: 'Add 48 and 24.', solution_steps: ['48 + 24 = 72'] };
  const context = [{ role: 'student' as const, text: 'Is it 62?' }];
  // Different lengths, so rows are padded; a long one is cut to the encoder's 128 tokens.
  const candidates = ['Try again.', 'What do you get when you add the tens first, then the ones?', 'word '.repeat(400)];
  const result = await v.verify({ task, context, candidates });
  t.equal(embedded.length, 1);
  t.equal(embedded[0]!.length, 2, 'only the task and the dialogue go through the shared encoder');
  const [tv, cv] = await encoder.embed(embedded[0]!);
  const dot = tv!.reduce((s, x, i) => s + x * cv![i]!, 0);
  candidates.forEach((text, i) => {
    const ids = encoder.encode(text).ids;
    const features = responseFeatures(text, task);
    const logit = ids.reduce((s, id) => s + w.E[id]!, 0) / ids.length + w.A * features[0]! + w.C * dot;
    const c = result.candidates[i]!;
    t.ok(Math.abs(c.logit - logit) < 1e-4, `candidate ${i}: logit ${c.logit} by hand ${logit}`);
    t.ok(Math.abs(c.score - sigmoid(logit)) < 1e-5);
    t.ok(Math.abs(c.dimensions!.tokens_over_ten! - sigmoid(ids.length / 10)) < 1e-5, 'the mask covers exactly its tokens');
    t.ok(Math.abs(c.dimensions!.log_chars! - sigmoid(features[1]!)) < 1e-5);
  });
  t.same(result.truncated.candidates, [2]);
  t.equal(encoder.encode(candidates[2]!).ids.length, 128);
});
