import t from 'tap';
import { EVALUATE_LIMITS } from '../../src/contracts/evaluate.js';
import { sentenceBleu } from '../../src/metrics/text/bleu.js';
import { meteor } from '../../src/metrics/text/meteor.js';
import { rouge } from '../../src/metrics/text/rouge.js';
import { testApp } from '../support/app.js';
import { startOpenAiStub } from '../support/openai-stub.js';
import { limitLengthText } from '../support/texts.js';

const messages = [
  { role: 'teacher', text: 'Step 1: preheat the oven to 180 degrees.' },
  { role: 'learner', text: 'Why 180?' },
  { role: 'tutor', text: 'It bakes the crust evenly. Step 2: grease the tin with butter.' },
  { role: 'student', text: 'Done. Finished' },
];
const reference = ['Preheat the oven to 180 degrees.', 'Grease the tin with butter.'];
const teacherText = 'Step 1: preheat the oven to 180 degrees.\nIt bakes the crust evenly. Step 2: grease the tin with butter.';

t.test('POST /evaluate-dialogue: every metric with its definition, text overlap against the tutorial', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const res = await app.inject({
    method: 'POST',
    url: '/evaluate-dialogue',
    payload: {
      messages,
      reference,
      options: {
        dict: {
          pass_at_k: [{ n: 10, c: 3, k: 1 }],
          recall_at_k: { predicted: ['a', 'b'], reference: ['b'], k: 1 },
          outcome: { pre: 0.5, post: 0.75 },
          cognitive_load: true,
        },
      },
    },
  });
  t.equal(res.statusCode, 200);
  const { metrics, dict, counts } = res.json();
  t.same(counts, { messages: 4, teacher: 2, learner: 2 });
  t.equal(metrics.question.value, 0.5);
  t.equal(metrics.completion.value, 1);
  t.match(metrics.question.definition, /WikiHowAgent Question/);
  // The route's text-overlap figures are the library functions' on the teacher text and the tutorial lines.
  t.equal(metrics.bleu.value, sentenceBleu(teacherText, [reference.join('\n')]).score);
  t.equal(metrics.rouge.value, rouge(teacherText, reference.join('\n'), { stemmer: false }).rougeL.fmeasure);
  t.equal(metrics.meteor.value, meteor(teacherText, [reference.join('\n')]).score);
  t.ok(metrics.token_match.value > 0.3 && metrics.token_match.value <= 1, `token match ${metrics.token_match.value}`);
  t.match(metrics.token_match.definition, /not roberta-large BERTScore/);
  t.ok(Math.abs(dict.pass_at_k[0].value - 0.3) < 1e-12);
  t.same(dict.recall_at_k, { k: 1, value: 0 });
  t.equal(dict.outcome_rate, 0.5);
  t.equal(dict.cognitive_load.length, 2);
});

t.test('POST /evaluate-dialogue: no reference is a documented empty result; bad input a 400', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/evaluate-dialogue', payload: { messages } });
  t.equal(res.statusCode, 200);
  for (const m of ['bleu', 'rouge', 'meteor', 'token_match']) t.match(res.json().metrics[m], { value: null, reason: 'no reference tutorial given' });
  const cases: [string, unknown, string][] = [
    ['an empty conversation', { messages: [] }, '$.messages'],
    ['an unknown role', { messages: [{ role: 'evaluator', text: 'x' }] }, '$.messages[0].role'],
    ['a 10 MB reference', { messages, reference: 'x'.repeat(10 * 1024 * 1024) }, '$.reference'],
    ['c > n in pass@k', { messages, options: { dict: { pass_at_k: [{ n: 2, c: 3, k: 1 }] } } }, '$.options.dict.pass_at_k[0]'],
    ['the judge while it is off', { messages, options: { judge: true } }, '$.options.judge'],
  ];
  for (const [name, payload, path] of cases) {
    const r = await app.inject({ method: 'POST', url: '/evaluate-dialogue', payload: payload as object });
    t.equal(r.statusCode, 400, name);
    t.ok(
      r.json().issues?.some((i: { path: string }) => i.path === path),
      `${name}: ${JSON.stringify(r.json().issues)?.slice(0, 200)}`,
    );
  }
});

t.test('POST /evaluate-dialogue with the LLM judge: one call per criterion to the configured endpoint', async (t) => {
  const stub = await startOpenAiStub(() => ({ content: '4' }));
  t.teardown(stub.close);
  const app = await testApp({ JUDGE_BASE_URL: stub.baseUrl, JUDGE_MODEL: 'qwen-judge' });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/evaluate-dialogue', payload: { messages, reference, options: { judge: true } } });
  t.equal(res.statusCode, 200);
  t.equal(res.json().judge.length, 8);
  t.ok(res.json().judge.every((j: { score: number }) => j.score === 4));
  t.equal(stub.calls.length, 8);
  t.equal(stub.calls[0]!.body.model, 'qwen-judge');
  t.match(stub.calls[0]!.body.messages[1]!.content, /Teacher: Step 1: preheat the oven/);
});

t.test('POST /evaluate-text and /evaluate-text/corpus', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const one = await app.inject({
    method: 'POST',
    url: '/evaluate-text',
    payload: { hypothesis: 'the cat sat on the mat', references: ['a cat sat on the mat'], options: { smooth: 'floor' } },
  });
  t.equal(one.statusCode, 200);
  t.same(one.json().bleu.counts, sentenceBleu('the cat sat on the mat', ['a cat sat on the mat'], { smoothMethod: 'floor' }).counts);
  t.ok(one.json().rouge.stemmer.rouge1.fmeasure > 0.8);
  const onlyBleu = await app.inject({ method: 'POST', url: '/evaluate-text', payload: { hypothesis: 'x', references: ['y'], metrics: ['bleu'] } });
  t.same(Object.keys(onlyBleu.json()).sort(), ['bleu', 'latency_ms']);
  const corpus = await app.inject({
    method: 'POST',
    url: '/evaluate-text/corpus',
    payload: {
      pairs: [
        { hypothesis: 'the cat sat on the mat today', references: ['the cat sat on the mat'] },
        { hypothesis: 'a dog ran in the park', references: ['the dog ran in the park'] },
      ],
    },
  });
  t.equal(corpus.statusCode, 200);
  t.equal(corpus.json().pairs, 2);
  t.ok(corpus.json().bleu.score > 0);
  const uneven = await app.inject({
    method: 'POST',
    url: '/evaluate-text/corpus',
    payload: {
      pairs: [
        { hypothesis: 'a', references: ['a'] },
        { hypothesis: 'b', references: ['b', 'c'] },
      ],
    },
  });
  t.equal(uneven.statusCode, 400);
  t.equal(uneven.json().issues[0].path, '$.pairs[1].references');
  const empty = await app.inject({ method: 'POST', url: '/evaluate-text', payload: { hypothesis: '', references: [] } });
  t.equal(empty.statusCode, 400);
  const tooLong = await app.inject({
    method: 'POST',
    url: '/evaluate-text',
    payload: { hypothesis: 'x'.repeat(EVALUATE_LIMITS.maxTextChars + 1), references: ['y'] },
  });
  t.equal(tooLong.json().issues[0].path, '$.hypothesis');
});

t.test('texts too long for ROUGE-L are refused with a 400, not scored for seconds', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/evaluate-text', payload: { hypothesis: limitLengthText(0), references: [limitLengthText(7)] } });
  t.equal(res.statusCode, 400);
  // Refused by its lengths, named for ROUGE-L: the same texts without ROUGE-L are scored (below).
  t.match(res.json(), { message: /ROUGE-L/, issues: [{ path: '$.hypothesis' }] });
  const bleuOnly = await app.inject({
    method: 'POST',
    url: '/evaluate-text',
    payload: { hypothesis: limitLengthText(0), references: [limitLengthText(7)], metrics: ['bleu', 'meteor'] },
  });
  t.equal(bleuOnly.statusCode, 200, 'the linear metrics still score them');
});
