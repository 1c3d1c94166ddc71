// `npm run bench`, dialogue evaluation: every metric of /evaluate-dialogue on a 40-turn teacher–learner
// conversation over a 20-step tutorial, in process on the production build, each metric timed alone
// (new text every round, so no cache answers), then the whole request over HTTP.
import { MODELS_AT_START, startBuiltService } from './service.js';
import { writeResult } from './results.js';

const dist = (p: string) => new URL(`../dist/${p}`, import.meta.url).href;
const { sentenceBleu } = (await import(dist('metrics/text/bleu.js'))) as typeof import('../src/metrics/text/bleu.js');
const { rouge } = (await import(dist('metrics/text/rouge.js'))) as typeof import('../src/metrics/text/rouge.js');
const { meteor } = (await import(dist('metrics/text/meteor.js'))) as typeof import('../src/metrics/text/meteor.js');
const { questionRate, completed, diversity } = (await import(
  dist('metrics/dialogue/conversation.js')
)) as typeof import('../src/metrics/dialogue/conversation.js');
const { tokenMatchScore } = (await import(dist('metrics/dialogue/token-match.js'))) as typeof import('../src/metrics/dialogue/token-match.js');
const { SentenceEncoder } = (await import(dist('text/encoder.js'))) as typeof import('../src/text/encoder.js');

const ROUNDS = Number(process.env.BENCH_EVAL_ROUNDS ?? 30);
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))]!;
const ACTIONS = [
  'preheat the oven',
  'grease the tin',
  'sift the flour',
  'whisk the eggs',
  'fold in the sugar',
  'pour the batter',
  'bake for 25 minutes',
  'test with a skewer',
  'cool on a rack',
  'dust with sugar',
];
const tutorial = (r: number) => Array.from({ length: 20 }, (_, i) => `Step ${i + 1}: ${ACTIONS[i % 10]} (${r}), taking care that nothing sticks to the bowl.`);
const conversation = (r: number) =>
  Array.from({ length: 40 }, (_, i) =>
    i % 2
      ? { role: 'learner' as const, text: i % 4 === 1 ? `Why should I ${ACTIONS[(i >> 1) % 10]} now?` : `Okay, I did that (${r}.${i}).` }
      : {
          role: 'teacher' as const,
          text: `Now ${ACTIONS[(i >> 1) % 10]} — round ${r}, turn ${i}. Keep the bowl steady and check the texture before you move on.`,
        },
  );

const encoder = await SentenceEncoder.fromDirectory(new URL('../models/use-lite', import.meta.url).pathname, { cacheSize: 10_000, batchSize: 32 });
meteor('warm up the wordnet', ['warm the wordnet up']);
await tokenMatchScore(encoder, 'warm up', 'warm up the encoder');
const timings: Record<string, number[]> = { 'question+completion+diversity': [], bleu: [], rouge: [], meteor: [], token_match: [] };
for (let r = 0; r < ROUNDS; r++) {
  const msgs = conversation(r);
  const hyp = msgs
    .filter((m) => m.role === 'teacher')
    .map((m) => m.text)
    .join('\n');
  const ref = tutorial(r).join('\n');
  const time = async (name: string, f: () => unknown) => {
    const t = performance.now();
    await f();
    timings[name]!.push(performance.now() - t);
  };
  await time('question+completion+diversity', () => [questionRate(msgs), completed(msgs), diversity(msgs)]);
  await time('bleu', () => sentenceBleu(hyp, [ref]));
  await time('rouge', () => [rouge(hyp, ref, { stemmer: false }), rouge(hyp, ref, { stemmer: true })]);
  await time('meteor', () => meteor(hyp, [ref]));
  await time('token_match', () => tokenMatchScore(encoder, hyp, ref));
}

const { base, child } = await startBuiltService(MODELS_AT_START);
const http: number[] = [];
try {
  for (let r = 0; r < ROUNDS + 3; r++) {
    const body = JSON.stringify({ messages: conversation(1000 + r), reference: tutorial(1000 + r) });
    const t = performance.now();
    const res = await fetch(`${base}/evaluate-dialogue`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await res.json();
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    if (r >= 3) http.push(performance.now() - t);
  }
} finally {
  child.kill('SIGTERM');
}
const rows = Object.entries(timings).map(([metric, ms]) => ({ metric, p50_ms: q(ms, 0.5), per_s: 1000 / q(ms, 0.5) }));
const figures = { turns: 40, tutorial_steps: 20, rounds: ROUNDS, metrics: rows, http_ms: { p50: q(http, 0.5), p99: q(http, 0.99) } };
console.log(JSON.stringify({ evaluate_dialogue: figures }, null, 2));
writeResult('evaluate-dialogue', figures);
for (const r of rows) console.log(`evaluate-dialogue ${r.metric.padEnd(30)}: p50 ${r.p50_ms.toFixed(2)} ms (${r.per_s.toFixed(0)} dialogues/s)`);
console.log(
  `evaluate-dialogue whole request over HTTP    : p50 ${q(http, 0.5).toFixed(1)} ms, p99 ${q(http, 0.99).toFixed(1)} ms (${(1000 / q(http, 0.5)).toFixed(1)} dialogues/s)`,
);
