// The pool is an execution detail: every route answers byte for byte the same with the work on the main
// thread (WORKERS=0) and on two workers, latency fields aside, and so do the refusals the work itself
// makes (a fit body read on the worker, a text too long for ROUGE-L). Route tests run on the main thread
// (test/support/app.ts); this file is what holds their answers for the pool too.
import t from 'tap';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE, EXAMPLE_SCORE_REQUEST } from '../../../src/contracts/examples.js';
import { TraceKnowledgeRequestSchema } from '../../../src/contracts/trace-knowledge.js';
import { VerifyTurnRequestSchema } from '../../../src/contracts/verify-turn.js';
import { benchBatch } from '../../../bench/realistic-plans.js';
import { example, testApp } from '../../support/app.js';
import { basePlan, densePlan } from '../../support/plans.js';
import { limitLengthText } from '../../support/texts.js';

const tutorial = ['Fill a pot with water.', 'Bring the water to a boil.', 'Add the pasta and stir.', 'Drain the pasta when tender.'];
const messages = [
  { role: 'teacher', text: 'First, fill a large pot with water and put it on the stove.' },
  { role: 'learner', text: 'How much water do I need?' },
  { role: 'teacher', text: 'About four litres. Bring it to a boil, then add the pasta and stir.' },
  { role: 'learner', text: 'Okay, it is boiling. Finished' },
];

const row = { user: 'u', skill: 's', correct: 1 };

const REQUESTS: { url: string; payload: object; status?: number }[] = [
  { url: '/score-plan', payload: { ...EXAMPLE_SCORE_REQUEST, run_id: null } },
  // 32 plans: one part per idle worker (split-groups.ts); 512 plans: split across the workers by size. In one piece on the main thread.
  { url: '/score-plan', payload: { ...benchBatch(4, 8, 5), run_id: null } },
  { url: '/score-plan', payload: { ...benchBatch(64, 8), run_id: 'parity', step: 0 } },
  { url: '/score-plan', payload: { ...benchBatch(64, 8, 11), run_id: 'parity', step: 1, options: { strict: true, ddof: 1 } } },
  {
    url: '/openrlhf/reward?run_id=parity-o',
    payload: { query: benchBatch(4, 8).groups.flatMap((g) => g.completions), labels: Array(32).fill(EXAMPLE_PROFILE) },
  },
  { url: '/evaluate-text', payload: { hypothesis: messages[0]!.text, references: tutorial } },
  { url: '/evaluate-text/corpus', payload: { pairs: messages.map((m) => ({ hypothesis: m.text, references: [tutorial.join(' ')] })) } },
  { url: '/evaluate-dialogue', payload: { messages, reference: tutorial, options: { dict: { cognitive_load: true } } } },
  {
    url: '/evaluate-plan',
    payload: { plans: [{ plan: EXAMPLE_PLAN, profile: EXAMPLE_PROFILE }, { plan: basePlan() }, { plan: densePlan(8, 1) }], gold: basePlan() },
  },
  { url: '/trace-knowledge', payload: example(TraceKnowledgeRequestSchema) },
  { url: '/trace-knowledge/fit', payload: { rows: Array.from({ length: 400 }, (_, i) => ({ user: i % 20, skill: `k${i % 3}`, correct: (i * 7) % 5 < 3 })) } },
  { url: '/verify-turn', payload: example(VerifyTurnRequestSchema) },
  { url: '/trace-knowledge/fit', payload: { rows: [{ ...row, correct: 2 }] }, status: 400 },
  { url: '/trace-knowledge/fit', payload: { rows: [{ ...row, order: 1 }, row] }, status: 400 },
  { url: '/evaluate-text', payload: { hypothesis: limitLengthText(0), references: [limitLengthText(7)] }, status: 400 },
];

// Latency and the wall-clock time a step was finalized are the only fields allowed to differ.
const withoutClock = (text: string) => text.replace(/"latency_ms":[0-9.e+-]+/g, '"latency_ms":0').replace(/"finalized_at":"[^"]+"/g, '"finalized_at":""');
/** Where two texts first differ, with some context (tap's diff of megabyte strings would take minutes). */
function firstDifference(a: string, b: string): string {
  let k = 0;
  while (k < a.length && a[k] === b[k]) k++;
  return `at ${k}: …${a.slice(Math.max(0, k - 80), k + 80)}… vs …${b.slice(Math.max(0, k - 80), k + 80)}…`;
}

t.test('WORKERS=0 and WORKERS=2 answer identically', async (t) => {
  const answers: string[][] = [];
  for (const workers of [0, 2]) {
    const app = await testApp({ WORKERS: workers });
    const texts: string[] = [];
    for (const r of REQUESTS) {
      const res = await app.inject({ method: 'POST', ...r });
      t.equal(res.statusCode, r.status ?? 200, `${r.url} with WORKERS=${workers}: ${res.body.slice(0, 200)}`);
      texts.push(withoutClock(res.body));
    }
    await app.close();
    answers.push(texts);
  }
  REQUESTS.forEach((r, i) => {
    const [a, b] = [answers[0]![i]!, answers[1]![i]!];
    t.ok(a === b, `${r.url} #${i} (${a.length} bytes)${a === b ? '' : ` differs ${firstDifference(a, b)}`}`);
  });
});
