import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { rescaled } from '../../src/verify/code-domain.js';
import { EmbeddingHeadVerifier } from '../../src/verify/embedding-head.js';
import { responseFeatures } from '../../src/verify/format.js';
import { type EmbeddingHeadManifest, VerifierManifestSchema } from '../../src/verify/manifest.js';
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
    t.ok(Math.abs(c.dimensions!.addresses_student! - sigmoid(features[1]!)) < 1e-5);
  });
  t.same(result.truncated.candidates, [2]);
  t.equal(encoder.encode(candidates[2]!).ids.length, 128);
});

t.test("code_calibration rescales reveals_answer on code tasks only, by the task's domain", async (t) => {
  const encoder = await useLite();
  const manifest = JSON.parse(readFileSync(`${DIR}/manifest.json`, 'utf8')) as Record<string, unknown>;
  // The fixture's second dimension taken as reveals_answer: σ(addresses_student).
  const scaling = { with_reference: { a: 0.5, c: -1 }, student_code_only: { a: 2, c: 0.25 } };
  const parsed = VerifierManifestSchema.parse({ ...manifest, dimensions: ['tokens_over_ten', 'reveals_answer'], code_calibration: scaling });
  const v = await EmbeddingHeadVerifier.load(DIR, parsed as EmbeddingHeadManifest, async () => encoder);
  const candidates = ['Can you check your loop bound?', 'The loop bound is wrong.'];
  const raw = candidates.map((text) => sigmoid(responseFeatures(text)[1]!));
  const fenced = [{ role: 'student' as const, text: 'Here:\n```python\nfor i in range(n - 1):\n    total += i\n```' }];
  const cases = [
    { task: { description: 'Sum 0..n-1.', reference_code: 'sum(range(n))' }, context: fenced, want: raw.map((p) => rescaled(p, scaling.with_reference)) },
    { task: { description: 'Sum 0..n-1.' }, context: fenced, want: raw.map((p) => rescaled(p, scaling.student_code_only)) },
    { task: { description: 'Add 48 and 24.' }, context: [{ role: 'student' as const, text: 'x = 62' }], want: raw },
  ];
  for (const { task, context, want } of cases) {
    const got = (await v.verify({ task, context, candidates })).candidates;
    got.forEach((c, i) => {
      t.ok(
        Math.abs(c.dimensions!.reveals_answer! - want[i]!) < 1e-6,
        `${task.reference_code ? 'reference' : context[0]!.text}: ${c.dimensions!.reveals_answer} vs ${want[i]}`,
      );
    });
  }
  t.not(rescaled(raw[0]!, scaling.with_reference), raw[0], 'the scaling changes the probability');
  t.throws(() => VerifierManifestSchema.parse({ ...manifest, code_calibration: { with_reference: { a: -1, c: 0 }, student_code_only: { a: 1, c: 0 } } }));
});
