import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { VerifyInput } from '../../src/verify/model.js';
import { fitContext, taskText } from '../../src/verify/format.js';
import { SentenceEncoder } from '../../src/text/encoder.js';
import { loadVerifier } from '../../src/verify/verifier.js';
import { recordEmbeds, recordEncodes, useLite } from '../support/encoder.js';
import { copyWithManifest } from '../support/model-dir.js';

// Each shipped verifier, on the float encoder it was trained on, must give the scores training computed for
// the same client requests (expected.json beside the model, written by training/finetune.py and train.py);
// the default one, served on the int8 encoder its manifest names, within the gap its evaluation measured.
const dirOf = (name: string) => fileURLToPath(new URL(`../../models/${name}`, import.meta.url));
interface Expected {
  request: VerifyInput;
  scores: number[];
  dimensions?: number[][];
  preprocessing?: { task: string; context: string; candidate_ids: number[][] };
}
const expectedOf = (name: string) => JSON.parse(readFileSync(`${dirOf(name)}/expected.json`, 'utf8')) as Expected[];
const manifestOf = (name: string) =>
  JSON.parse(readFileSync(`${dirOf(name)}/manifest.json`, 'utf8')) as {
    name: string;
    version: string;
    dimensions?: string[];
    context_chars: number;
    response_input?: 'embedding' | 'tokens';
  };
const worstGap = (got: number[], want: number[]) => Math.max(...got.map((s, i) => Math.abs(s - want[i]!)));

for (const name of ['verifier', 'verifier-head']) {
  t.test(`models/${name} reproduces its training-time scores on fixed requests, on the float encoder it was trained on`, async (t) => {
    const encoder = useLite();
    const v = await loadVerifier(dirOf(name), () => encoder);
    const { name: model, version } = manifestOf(name);
    t.same(v.info, { name: model, version, kind: 'embedding-head' });
    const expected = expectedOf(name);
    const dims = manifestOf(name).dimensions ?? [];
    t.ok(expected.length >= 5, 'MathDial, MRBench and Bridge requests');
    for (const { request, scores, dimensions } of expected) {
      const got = (await v.verify(request)).candidates;
      t.equal(got.length, scores.length);
      const worst = worstGap(
        got.map((c) => c.score),
        scores,
      );
      t.ok(worst < 1e-4, `max |served − trained| = ${worst.toExponential(2)}`);
      if (dimensions) {
        const served = got.flatMap((c) => dims.map((d) => c.dimensions![d]!));
        const gap = worstGap(served, dimensions.flat());
        t.ok(gap < 1e-4, `dimensions: max |served − trained| = ${gap.toExponential(2)}`);
      } else t.equal(got[0]!.dimensions, undefined, 'no dimensions from a model without them');
    }
  });
}

t.test('models/verifier scores a code task with its code logit, which pays less for a question appended to a wrong hint', async (t) => {
  const encoder = useLite();
  const served = await loadVerifier(dirOf('verifier'), () => encoder);
  const plain = await loadVerifier(
    copyWithManifest(dirOf('verifier'), (m) => {
      delete m.code_logit;
    }),
    () => encoder,
  );
  const hint = 'The bug is on line 2.';
  const candidates = [hint, `${hint} Can you see why?`];
  const code: VerifyInput = {
    task: { description: 'def sum_to(n): return 0 + 1 + ... + n' },
    context: [
      { role: 'tutor', text: 'Can you show me what you have so far?' },
      {
        role: 'student',
        text: 'Here it is, but the tests fail:\n```python\ndef sum_to(n):\n    total = 0\n    for i in range(n):\n        total += i\n    return total\n```',
      },
    ],
    candidates,
  };
  const math: VerifyInput = { task: { description: 'Add 48 and 24.' }, context: [{ role: 'student', text: 'I got 62.' }], candidates };
  const scores = async (v: typeof served, input: VerifyInput) => (await v.verify(input)).candidates.map((c) => c.logit);
  t.same(await scores(served, math), await scores(plain, math), 'a math task keeps the score MRBench selected');
  const [onCode, asMath] = [await scores(served, code), await scores(plain, code)];
  const lift = (z: number[]) => z[1]! - z[0]!;
  t.ok(lift(onCode) < lift(asMath), `the question lifts the wrong hint by ${lift(onCode).toFixed(2)} on code against ${lift(asMath).toFixed(2)}`);
});

t.test('models/verifier as served, on the int8 encoder its manifest names, stays within the gap its evaluation measured', async (t) => {
  const { int8_serving: measured } = JSON.parse(readFileSync(`${dirOf('verifier')}/metrics.json`, 'utf8')) as {
    int8_serving: { encoders: { served_on: string }; score_gap: { all: { max: number } } };
  };
  const loaded: string[] = [];
  const v = await loadVerifier(dirOf('verifier'), async (dir) => {
    const encoder = await SentenceEncoder.fromDirectory(dir, { cacheSize: 100, batchSize: 32 });
    loaded.push(encoder.manifest.name);
    return encoder;
  });
  t.same(loaded, [measured.encoders.served_on]);
  t.equal(measured.encoders.served_on, 'use-lite-int8');
  // The expected requests are training requests, so their gaps are among those int8_agreement.py measured.
  let worst = 0;
  for (const { request, scores } of expectedOf('verifier')) {
    const got = (await v.verify(request)).candidates.map((c) => c.score);
    worst = Math.max(worst, worstGap(got, scores));
  }
  t.ok(
    worst > 0 && worst <= measured.score_gap.all.max + 1e-6,
    `max |served − trained| = ${worst.toExponential(2)} (measured max ${measured.score_gap.all.max})`,
  );
});

t.test('the default model is served the text and token ids it was trained on, byte for byte', async (t) => {
  const encoder = await useLite();
  const { context_chars } = manifestOf('verifier');
  const expected = expectedOf('verifier');
  t.ok(expected.every((e) => e.preprocessing));
  for (const { request, preprocessing } of expected) {
    t.equal(taskText(request.task), preprocessing!.task);
    t.equal(fitContext(request.context, context_chars, (text) => !encoder.encode(text).truncated).text, preprocessing!.context);
    t.same(
      request.candidates.map((c) => encoder.encode(c).ids),
      preprocessing!.candidate_ids,
    );
  }
});

t.test('the default model names the eight MRBench dimensions and returns each in [0, 1]', async (t) => {
  const dims = manifestOf('verifier').dimensions!;
  t.same(dims, [
    'mistake_identification',
    'mistake_location',
    'reveals_answer',
    'providing_guidance',
    'actionability',
    'coherence',
    'encouraging_tone',
    'humanlike',
  ]);
  const encoder = await useLite();
  const v = await loadVerifier(dirOf('verifier'), async () => encoder);
  const task = { description: 'Natalia sold 48 clips in April and half as many in May. How many in all?', solution_steps: ['48 / 2 = 24', '48 + 24 = 72'] };
  const context = [{ role: 'student' as const, text: 'I think she sold 48 + 48 = 96 clips.' }];
  const { candidates } = await v.verify({ task, context, candidates: ['The answer is 72.', 'How many clips did she sell in May, if it was half of April?'] });
  for (const c of candidates) {
    t.same(Object.keys(c.dimensions!), dims);
    t.ok(Object.values(c.dimensions!).every((p) => p >= 0 && p <= 1));
  }
  t.ok(candidates[0]!.dimensions!.reveals_answer! > candidates[1]!.dimensions!.reveals_answer!, 'stating the answer reveals it more than a question');
});

t.test('the task and the dialogue are embedded once per request, the candidates by the shared encoder or the model', async (t) => {
  const encoder = await useLite();
  const calls = recordEmbeds(encoder);
  for (const name of ['verifier', 'verifier-head']) {
    const perCandidate = manifestOf(name).response_input !== 'tokens';
    const v = await loadVerifier(dirOf(name), async () => encoder);
    calls.length = 0;
    const { request } = expectedOf(name).find((e) => e.request.candidates.length > 3)!;
    const result = await v.verify(request);
    t.equal(calls.length, 1, `${name}: one encoder call`);
    t.same(calls[0]!.slice(2), perCandidate ? request.candidates : [], `${name}: the candidates embedded by the shared encoder or not`);
    t.equal(result.candidates.length, request.candidates.length);
    t.match(result.candidates[0]!.features, { invites_action: Number, reveals_final_answer: Number });
  }
});

t.test('a verification tokenizes each text once: for truncated, for fitting the context and for the encoder', async (t) => {
  for (const name of ['verifier', 'verifier-head']) {
    // A fresh encoder each time, so that every text misses its cache and the encoder must tokenize it.
    const encoder = await useLite();
    const encoded = recordEncodes(encoder);
    const v = await loadVerifier(dirOf(name), async () => encoder);
    const { request } = expectedOf(name).find((e) => e.request.candidates.length > 3)!;
    await v.verify(request);
    t.ok(encoded.includes(taskText(request.task)), `${name}: the task was tokenized`);
    t.ok(
      request.candidates.every((c) => encoded.includes(c)),
      `${name}: every candidate was tokenized`,
    );
    t.equal(new Set(encoded).size, encoded.length, `${name}: none twice (${encoded.length} texts)`);
  }
});

t.test('an embedding head whose manifest promises inputs or outputs the model lacks is refused at load', async (t) => {
  const encoder = await useLite();
  const reason = async (edit: (m: Record<string, unknown>) => void) =>
    loadVerifier(copyWithManifest(dirOf('verifier-head'), edit), async () => encoder).then(
      () => 'loaded',
      (e: Error) => e.message,
    );
  t.equal(await reason(() => {}), 'loaded');
  t.match(await reason((m) => (m.response_input = 'tokens')), /the head has no input response_ids, response_mask/);
  t.match(await reason((m) => (m.dimensions = ['reveals_answer'])), /the head has no output "dimensions"/);
  t.match(await reason((m) => (m.response_input = 'characters')), /manifest\.json: response_input: /);
});
