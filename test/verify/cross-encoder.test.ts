import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { fill, traverFields } from '../../src/verify/format.js';
import { sigmoid, type EncoderAt } from '../../src/verify/model.js';
import { loadVerifier } from '../../src/verify/verifier.js';
import { copyWithManifest } from '../support/model-dir.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/tiny-cross-encoder', import.meta.url));
const weights = JSON.parse(readFileSync(join(FIXTURE, 'weights.json'), 'utf8')) as { E: number[]; T: number[]; B: number };
const vocab = (JSON.parse(readFileSync(join(FIXTURE, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } }).model.vocab;
const noEncoder: EncoderAt = () => Promise.reject(new Error('a cross-encoder needs no sentence encoder'));

/** The fixture model by hand: mean over tokens of E[token] + T[segment], plus B. */
function expectedLogit(first: string[], second: string[]): number {
  const rows = [['[CLS]', 0], ...first.map((tok) => [tok, 0]), ['[SEP]', 0], ...second.map((tok) => [tok, 1]), ['[SEP]', 1]] as [string, number][];
  const sum = rows.reduce((s, [tok, type]) => s + weights.E[vocab[tok]!]! + weights.T[type]!, 0);
  return sum / rows.length + weights.B;
}

const copyWith = (edit: (manifest: Record<string, unknown>) => void, files: Record<string, Buffer | string> = {}) => copyWithManifest(FIXTURE, edit, files);

t.test("Traver's template fields", async (t) => {
  const fields = traverFields({ description: 'Sum a list.', code_context: 'def f(xs):', dependencies: ['builtins.sum'], solution_steps: ['Loop.', 'Add.'] }, [
    { role: 'tutor', text: 'Ready?' },
    { role: 'student', text: 'Yes' },
  ]);
  t.same(fields, { task: 'Sum a list.\ndef f(xs):', knowledge: 'Dependencies: builtins.sum\nSteps: Loop. Add.', context: 'Tutor: Ready?\nStudent: Yes' });
  t.equal(
    fill('{task}|{knowledge}|{context}|{response}|{other}', { ...fields, response: 'R' }),
    `${fields.task}|${fields.knowledge}|${fields.context}|R|{other}`,
  );
});

t.test('a bring-your-own cross-encoder is served from its manifest: pair encoding, left truncation, sigmoid', async (t) => {
  const v = await loadVerifier(FIXTURE, noEncoder);
  t.same(v.info, { name: 'tiny-cross-encoder', version: 'fixture-1', kind: 'cross-encoder' });

  // Fits in max_length 12: [CLS] python code [SEP] loop runs fast [SEP] = 8 tokens.
  const short = await v.verify({ task: { description: 'python code' }, context: [], candidates: ['loop runs fast', 'the loop'] });
  const l0 = expectedLogit(['python', 'code'], ['loop', 'runs', 'fast']);
  const l1 = expectedLogit(['python', 'code'], ['the', 'loop']);
  t.ok(Math.abs(short.candidates[0]!.logit - l0) < 1e-5, `${short.candidates[0]!.logit} vs ${l0}`);
  t.ok(Math.abs(short.candidates[1]!.logit - l1) < 1e-5, 'each candidate is its own row of one batch');
  t.ok(Math.abs(short.candidates[0]!.score - sigmoid(l0)) < 1e-6, 'sigmoid applied');
  t.same(short.truncated, { task: false, context: false, candidates: [] });

  // 9 + 4 tokens past a budget of 9: the response is kept whole, the first text loses its oldest 4.
  // "Student: …" makes "student [UNK] …" (no ":" in the fixture's vocabulary).
  const long = await v.verify({
    task: { description: 'python code' },
    context: [{ role: 'student', text: 'the student asks a question' }],
    candidates: ['recursion runs fast .'],
  });
  const kept = expectedLogit(['the', 'student', 'asks', 'a', 'question'], ['recursion', 'runs', 'fast', '.']);
  t.ok(Math.abs(long.candidates[0]!.logit - kept) < 1e-5, 'cut from the left: the latest dialogue and the response stay');
  t.same(long.truncated, { task: true, context: true, candidates: [] });

  // A response longer than the budget keeps what the first text leaves, at least half; its cut is reported per candidate.
  const wordy = await v.verify({
    task: { description: 'code' },
    context: [],
    candidates: ['the tutor explains the loop and the code and the recursion', 'fast'],
  });
  // 11 response tokens ("and" is [UNK]) and 1 first-text token: the response keeps 9 − 1 = 8, cut from the right.
  const wordyLogit = expectedLogit(['code'], ['the', 'tutor', 'explains', 'the', 'loop', '[UNK]', 'the', 'code']);
  t.ok(Math.abs(wordy.candidates[0]!.logit - wordyLogit) < 1e-5, `${wordy.candidates[0]!.logit} vs ${wordyLogit}`);
  t.same(wordy.truncated.candidates, [0]);
});

t.test('a verifier directory that cannot be served says why', async (t) => {
  const reason = async (dir: string) =>
    await loadVerifier(dir, noEncoder).then(
      () => 'loaded',
      (e: Error) => e.message,
    );
  t.match(await reason(join(tmpdir(), 'no-such-verifier')), /cannot read .*manifest\.json: ENOENT/);
  t.match(await reason(copyWith(() => {}, { 'manifest.json': '{ not json' })), /manifest\.json is not JSON/);
  t.match(await reason(copyWith((m) => (m.kind = 'seq2seq'))), /manifest\.json: kind: /);
  t.match(
    await reason(copyWith((m) => (m.template = { first: '{context}', second: '{task}' }))),
    /template\.second: template\.second must contain \{response\}/,
  );
  t.match(await reason(copyWith(() => {}, { 'model.onnx': Buffer.from('this is not an onnx model') })), /cross-encoder tiny-cross-encoder in .*: /);
  t.match(await reason(copyWith((m) => (m.output = 'probabilities'))), /no output "probabilities" \(it has logits\)/);
  t.match(await reason(copyWith((m) => (m.model = 'missing.onnx'))), /cross-encoder tiny-cross-encoder/);
  // Without the sigmoid the model's output is taken as the probability itself.
  const raw = await loadVerifier(
    copyWith((m) => (m.sigmoid = false)),
    noEncoder,
  );
  const [c] = (await raw.verify({ task: { description: 'python' }, context: [], candidates: ['fast'] })).candidates;
  t.ok(Math.abs(c!.score - expectedLogit(['python'], ['fast'])) < 1e-5);
  t.equal(c!.score, c!.logit);
});
