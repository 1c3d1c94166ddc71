import t from 'tap';
import { judgeConversation, type JudgeConfig } from '../../../src/metrics/judge/client.js';
import { CRITERIA, parseScore } from '../../../src/metrics/judge/rubric.js';
import { startOpenAiStub } from '../../support/openai-stub.js';

const criterionOf = (content: string) => CRITERIA.find((c) => content.includes(`Criterion: ${c}.`))!;

t.test('eight independent calls, one per criterion, with bounded concurrency', async (t) => {
  const stub = await startOpenAiStub((call) => ({
    content: `${(CRITERIA.indexOf(criterionOf(call.body.messages[1]!.content)) % 5) + 1}\nBecause.`,
    delayMs: 30,
  }));
  t.teardown(stub.close);
  const config: JudgeConfig = { baseUrl: stub.baseUrl, model: 'judge-7b', apiKey: 'k-123', concurrency: 3, timeoutMs: 2000, retries: 0 };
  const scores = await judgeConversation(config, 'Teacher: Preheat the oven.\nLearner: Done.', 'Step 1: preheat the oven.');
  t.same(
    scores.map((s) => s.criterion),
    [...CRITERIA],
  );
  t.same(
    scores.map((s) => s.score),
    CRITERIA.map((_, i) => (i % 5) + 1),
  );
  t.equal(stub.calls.length, 8);
  t.equal(new Set(stub.calls.map((c) => criterionOf(c.body.messages[1]!.content))).size, 8, 'each call asks about one criterion');
  t.ok(stub.maxInFlight() <= 3, `at most 3 in flight (saw ${stub.maxInFlight()})`);
  t.ok(stub.maxInFlight() >= 2, 'and they do run concurrently');
  t.equal(stub.calls[0]!.body.model, 'judge-7b');
  t.equal(stub.calls[0]!.authorization, 'Bearer k-123');
  t.match(stub.calls[0]!.body.messages[1]!.content, /Tutorial:\nStep 1: preheat the oven\./);
});

t.test('retries 5xx and timeouts; a criterion that keeps failing is null with the reason, the others stand', async (t) => {
  const stub = await startOpenAiStub((call, n) => {
    const c = criterionOf(call.body.messages[1]!.content);
    if (c === 'Clarity' && n <= 2) return { status: 503 };
    if (c === 'Depth') return { content: '4', delayMs: 400 }; // always past the timeout
    if (c === 'Naturalness') return { content: 'I cannot rate this.' };
    return { content: 'Score: 4/5' };
  });
  t.teardown(stub.close);
  const scores = await judgeConversation({ baseUrl: stub.baseUrl, model: 'm', concurrency: 1, timeoutMs: 150, retries: 1 }, 'Teacher: hi');
  const by = Object.fromEntries(scores.map((s) => [s.criterion, s]));
  t.match(by.Clarity, { score: null, attempts: 2, error: /HTTP 503/ }, 'two 503s exhaust one retry');
  t.match(by.Depth, { score: null, attempts: 2, error: /within 150 ms/ });
  t.match(by.Naturalness, { score: null, error: /no score/ });
  t.match(by.Truthfulness, { score: 4, attempts: 1 });
  const refused = await startOpenAiStub(() => ({ status: 401 }));
  t.teardown(refused.close);
  const [first] = await judgeConversation({ baseUrl: refused.baseUrl, model: 'm', concurrency: 8, timeoutMs: 500, retries: 3 }, 'x');
  t.match(first, { score: null, attempts: 1, error: /HTTP 401/ }, 'a 4xx is not retried');
});

t.test('scores are read from the reply', async (t) => {
  t.same(['4', 'Score: 5/5', '**3** because', 'Rating 2.', '10 out of 10', 'none', '4.5'].map(parseScore), [4, 5, 3, 2, null, null, null]);
});
