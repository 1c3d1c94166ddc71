import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { fill, traverFields } from '../../src/verify/format.js';
import { REMOTE_TEMPLATE } from '../../src/verify/manifest.js';
import type { TurnVerifier, VerifyInput } from '../../src/verify/model.js';
import { rankCandidates } from '../../src/verify/ranking.js';
import { SentenceEncoder } from '../../src/text/encoder.js';
import { loadVerifier, remoteProbe } from '../../src/verify/verifier.js';
import { type Call, InferenceStandIn, remoteVerifierDir } from '../support/inference-server.js';

const noEncoder = () => Promise.reject(new Error('a remote verifier needs no encoder'));

const input: VerifyInput = {
  task: { description: 'def running_total(xs): return the running totals', solution_steps: ['Keep a sum', 'Append it'] },
  context: [
    { role: 'tutor', text: 'What should running_total([1, 2, 3]) return?' },
    { role: 'student', text: 'The same list?' },
  ],
  candidates: ['No, the answer is [1, 3, 6].', 'Close! What is the total after adding 1 and 2?', 'Try again.'],
};

// The stand-in model: a question is worth most, giving the answer away least.
const model = (text: string): number => (text.includes('What is the total') ? 0.9 : text.includes('answer is') ? 0.05 : 0.4);
const lastOf = (input: string[]) => input[input.length - 1]!;

async function standIn(t: Test, api: 'vllm' | 'tei'): Promise<InferenceStandIn> {
  const server = await new InferenceStandIn(api, (i) => model(lastOf(i))).listen();
  t.teardown(() => server.close());
  return server;
}

const load = async (dir: string): Promise<TurnVerifier> => loadVerifier(dir, noEncoder);

const failure = async (p: Promise<unknown>): Promise<{ code?: string; message: string }> => {
  try {
    await p;
  } catch (e) {
    return e as { code?: string; message: string };
  }
  throw new Error('expected a failure');
};

t.test('vLLM /classify: the N candidates in one call, in Traver order, scored by probability', async (t) => {
  const server = await standIn(t, 'vllm');
  // The answer's items arrive out of order: the index places them.
  server.answer = (call) => {
    const a = server.documented(call) as { json: { data: unknown[] } };
    a.json.data.reverse();
    return a;
  };
  const verifier = await load(remoteVerifierDir(server, { served_model: 'traver-verifier' }));
  t.same(verifier.info, { name: 'traver-verifier', version: 'test-1', kind: 'remote' });
  t.equal(server.calls.length, 0, 'loading does not call the server');
  const v = await verifier.verify(input);
  t.equal(server.calls.length, 1, 'one call for all candidates');
  const call = server.calls[0]!;
  const fields = traverFields(input.task, input.context);
  t.same(call.body, {
    model: 'traver-verifier',
    input: input.candidates.map((response) => fill(REMOTE_TEMPLATE, { ...fields, response })),
    truncate_prompt_tokens: -1,
    truncation_side: 'left',
  });
  t.equal(
    (call.body as { input: string[] }).input[1],
    'def running_total(xs): return the running totals\nSteps: Keep a sum Append it\nTutor: What should running_total([1, 2, 3]) return?\nStudent: The same list?\nTutor: Close! What is the total after adding 1 and 2?',
  );
  t.equal(call.headers['content-type'], 'application/json');
  const scores = v.candidates.map((c) => c.score);
  t.same(scores, [0.05, 0.9, 0.4]);
  t.same(rankCandidates(scores), [1, 2, 0]);
  t.ok(Math.abs(v.candidates[1]!.logit - Math.log(0.9 / 0.1)) < 1e-9, 'logit: the inverse sigmoid of the probability');
  t.same(v.truncated, { task: false, context: false, candidates: [] });
});

t.test('TEI /predict: a batch of text pairs, the configured label picked from the sorted lists', async (t) => {
  const server = await standIn(t, 'tei');
  const verifier = await load(
    remoteVerifierDir(server, { label: 'good', api_key: 'secret', template: { first: '{task}\n{knowledge}\n{context}', second: '{response}' } }),
  );
  const v = await verifier.verify(input);
  t.equal(server.calls.length, 1);
  const body = server.calls[0]!.body as { inputs: string[][]; truncate: boolean; truncation_direction: string; raw_scores: boolean };
  t.same(
    body.inputs.map((pair) => pair[1]),
    input.candidates,
  );
  t.ok(body.inputs.every((pair) => pair.length === 2 && pair[0] === body.inputs[0]![0]));
  t.same({ truncate: body.truncate, direction: body.truncation_direction, raw: body.raw_scores }, { truncate: true, direction: 'Left', raw: false });
  t.equal(server.calls[0]!.headers.authorization, 'Bearer secret');
  t.same(
    v.candidates.map((c) => c.score),
    [0.05, 0.9, 0.4],
  );
});

t.test('output "value": the raw output is the turn value, clamped to [0, 1]', async (t) => {
  for (const api of ['vllm', 'tei'] as const) {
    const server = await new InferenceStandIn(api, () => 0).listen();
    t.teardown(() => server.close());
    const raw = [1.3, 0.25, -0.2];
    server.answer = () => {
      const n = input.candidates.length;
      return api === 'vllm'
        ? { json: { data: raw.slice(0, n).map((x, index) => ({ index, label: 'LABEL_0', probs: [x], num_classes: 1 })) } }
        : { json: raw.map((x) => [{ label: 'LABEL_0', score: x }]) };
    };
    const v = await (await load(remoteVerifierDir(server, { output: 'value' }))).verify(input);
    t.same(
      v.candidates.map((c) => [c.score, c.logit]),
      [
        [1, 1.3],
        [0.25, 0.25],
        [0, -0.2],
      ],
      api,
    );
    const body = server.calls[0]!.body as Record<string, unknown>;
    t.equal(api === 'vllm' ? body.use_activation : body.raw_scores, api !== 'vllm', `${api} asked for raw outputs`);
  }
});

t.test('a 503 or 429 is retried with back-off, then the answer is used; another 5xx is not', async (t) => {
  const server = await standIn(t, 'vllm');
  const statuses = [503, 429];
  server.answer = (call) => {
    const status = statuses.shift();
    return status ? { status, text: 'busy' } : server.documented(call);
  };
  const v = await (await load(remoteVerifierDir(server))).verify(input);
  t.equal(server.calls.length, 3);
  t.same(
    v.candidates.map((c) => c.score),
    [0.05, 0.9, 0.4],
  );
  server.calls.length = 0;
  server.answer = () => ({ status: 500, text: 'model crashed' });
  const e = await failure((await load(remoteVerifierDir(server, { retries: 3 }))).verify(input));
  t.match(e.message, /HTTP 500: model crashed \(1 attempts\)/);
  t.equal(server.calls.length, 1, 'a 500 may have done the work: not sent again');
});

t.test('a server that stays down: verifier_unavailable after the retries', async (t) => {
  // A port that was free a moment ago: nothing listens there.
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => probe.once('listening', r));
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  const server = new InferenceStandIn('vllm', () => 0);
  server.url = `http://127.0.0.1:${port}`;
  const dir = remoteVerifierDir(server, { retries: 1 });
  const e = await failure((await load(dir)).verify(input));
  t.equal(e.code, 'verifier_unavailable');
  t.match(e.message, /cannot be reached: ECONNREFUSED \(2 attempts\)/);
  const check = await remoteProbe(dir);
  t.match(await check!(), /cannot be reached/);

  const errors = await standIn(t, 'tei');
  errors.answer = () => ({ status: 503, json: { error: 'unhealthy', error_type: 'unhealthy' } });
  const down = await failure((await load(remoteVerifierDir(errors, { retries: 2, label: 'good' }))).verify(input));
  t.equal(down.code, 'verifier_unavailable');
  t.match(down.message, /HTTP 503.*\(3 attempts\)/);
  t.equal(errors.calls.length, 3);
});

t.test('answers that are not the documented answer: verifier_unavailable at once, not retried', async (t) => {
  const server = await standIn(t, 'vllm');
  const cases: [string, (call: Call) => ReturnType<InferenceStandIn['answer']>, RegExp][] = [
    ['not JSON', () => ({ text: '<html>gateway</html>' }), /not JSON/],
    ['too few items', () => ({ json: { data: [{ index: 0, probs: [0.5] }] } }), /one "data" item per candidate/],
    ['a repeated index', () => ({ json: { data: [0, 0, 1].map((index) => ({ index, probs: [0.5] })) } }), /index/],
    ['a probability above 1', () => ({ json: { data: [0, 1, 2].map((index) => ({ index, probs: [1.5] })) } }), /not a value in \[0, 1\]/],
    ['not a number', () => ({ json: { data: [0, 1, 2].map((index) => ({ index, probs: ['x'] })) } }), /not a number/],
    ['two classes, no label', () => ({ json: { data: [0, 1, 2].map((index) => ({ index, probs: [0.5, 0.5] })) } }), /set "label"/],
    ['a 400', () => ({ status: 400, json: { error: { message: 'too long' } } }), /HTTP 400: .*too long/],
  ];
  const verifier = await load(remoteVerifierDir(server));
  for (const [what, answer, message] of cases) {
    server.calls.length = 0;
    server.answer = answer;
    const e = await failure(verifier.verify(input));
    t.equal(e.code, 'verifier_unavailable', what);
    t.match(e.message, message, what);
    t.equal(server.calls.length, 1, `${what}: not retried`);
  }
  const tei = await standIn(t, 'tei');
  const e = await failure((await load(remoteVerifierDir(tei))).verify(input));
  t.match(e.message, /2 labels: set "label"/, 'TEI: several labels need `label`');
  const missing = await failure((await load(remoteVerifierDir(tei, { label: 'nice' }))).verify(input));
  t.match(missing.message, /without the label "nice"/);
});

t.test('a stalling server: the call ends when the request is abandoned, or at timeout_ms', async (t) => {
  const server = await standIn(t, 'vllm');
  server.answer = () => 'stall';
  const verifier = await load(remoteVerifierDir(server, { retries: 0 }));
  let stopped = false;
  const pending = failure(verifier.verify(input, () => stopped));
  await server.until(() => server.calls.length === 1);
  stopped = true;
  const e = await pending;
  t.equal(e.code, 'client_closed', 'abandoned, not an error of the server');
  await server.until(() => server.abandoned === 1);
  t.pass('the connection to the server was closed');

  server.calls.length = 0;
  const timed = await load(remoteVerifierDir(server, { retries: 3, timeout_ms: 100 }));
  const late = await failure(timed.verify(input));
  t.equal(late.code, 'verifier_unavailable');
  t.match(late.message, /no answer within 100 ms; not sent again \(1 attempts\)/);
  t.equal(server.calls.length, 1, 'a stalled server gets the batch once');
});

t.test('remote manifests are checked at load', async (t) => {
  const server = new InferenceStandIn('vllm', () => 0);
  server.url = 'http://127.0.0.1:9';
  const bad: [Record<string, unknown>, RegExp][] = [
    [{ template: { first: '{task}', second: '{response}' } }, /one text per input/],
    [{ template: { first: '{task} {context}' } }, /must contain \{response\}/],
    [{ label: 'good' }, /class index for vllm/],
    [{ url: 'ftp://example.com' }, /url/],
  ];
  for (const [extra, message] of bad) await t.rejects(load(remoteVerifierDir(server, extra)), message);
  t.equal(await remoteProbe(remoteVerifierDir(server, { url: 'nope' })), undefined, 'no probe for a directory that does not load');
});

t.test("dimensions: read from the served model's classes the manifest names, or from a local verifier's", async (t) => {
  const vllm = await standIn(t, 'vllm');
  vllm.answer = (call) => ({
    json: { data: (call.body as { input: string[] }).input.map((text, index) => ({ index, probs: [model(text), 0.1 * (index + 1), 0.5] })) },
  });
  const v = await (await load(remoteVerifierDir(vllm, { label: 0, dimensions: { reveals_answer: 1, coherence: 2 } }))).verify(input);
  t.same(
    v.candidates.map((c) => [c.score, c.dimensions]),
    [
      [0.05, { reveals_answer: 0.1, coherence: 0.5 }],
      [0.9, { reveals_answer: 0.2, coherence: 0.5 }],
      [0.4, { reveals_answer: 0.30000000000000004, coherence: 0.5 }],
    ],
  );
  const missing = await failure((await load(remoteVerifierDir(vllm, { label: 0, dimensions: { reveals_answer: 7 } }))).verify(input));
  t.match(missing.message, /3 classes, and a dimension's class is 7/);

  const tei = await standIn(t, 'tei');
  const w = await (await load(remoteVerifierDir(tei, { label: 'good', dimensions: { reveals_answer: 'bad' } }))).verify(input);
  t.same(
    w.candidates.map((c) => [c.score, c.dimensions?.reveals_answer]),
    [
      [0.05, 0.95],
      [0.9, 0.09999999999999998],
      [0.4, 0.6],
    ],
  );
  await t.rejects(
    load(remoteVerifierDir(tei, { label: 'good', dimensions: { reveals_answer: 2 } })),
    /a dimension is a class index for vllm, a label name for tei/,
  );

  // A served model without dimensions: the shipped local head's, beside the remote score.
  const shipped = fileURLToPath(new URL('../../models/verifier', import.meta.url));
  const withHead = await loadVerifier(remoteVerifierDir(vllm, { dimensions_from: shipped }), (dir) =>
    SentenceEncoder.fromDirectory(dir, { cacheSize: 10, batchSize: 8 }),
  );
  vllm.answer = (call) => vllm.documented(call);
  const h = await withHead.verify(input);
  t.same(
    h.candidates.map((c) => c.score),
    [0.05, 0.9, 0.4],
    'the score is the server’s',
  );
  t.ok(
    h.candidates.every((c) => c.dimensions && Object.keys(c.dimensions).includes('reveals_answer') && Object.keys(c.dimensions).length === 8),
    'the eight dimensions are the local head’s',
  );
  await t.rejects(load(remoteVerifierDir(vllm, { dimensions_from: shipped, dimensions: { reveals_answer: 0 } })), /not both/);
});
