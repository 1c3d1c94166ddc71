// `npm run bench`, knowledge tracing: POST /trace-knowledge with 50 knowledge components over a 40-turn
// dialogue (the Traver evaluation dialogues and their tasks' steps and dependencies, repeated and numbered
// to size), against the service started as `npm start` starts it. Three ways a backend calls it:
//  - cold: every text new to the service (the encoder's cache never answers);
//  - new dialogue: the task's KCs seen before, all 40 turns new;
//  - resent: the same task and the whole dialogue sent again (texts cached, evidence and BKT recomputed);
//  - incremental: the previous estimate passed back and one new turn read, as a backend calls it each turn.
import { readFileSync } from 'node:fs';
import { MODELS_AT_START, startBuiltService } from './service.js';
import { writeResult } from './results.js';

const ROUNDS = Number(process.env.BENCH_TRACE_ROUNDS ?? 60);
const WARM_UP = 5;
const KCS = 50;
const TURNS = 40;
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))]!;

type Pair = {
  dependency_all: string;
  reference_steps: string;
  model_1: { conversation: Record<string, string>[] };
  model_2: { conversation: Record<string, string>[] };
};
const pairs = JSON.parse(readFileSync(new URL('../test/fixtures/coding-tutor/example_eval_pairs.json', import.meta.url), 'utf8')) as Pair[];
const stepTexts = pairs.flatMap((p) =>
  p.reference_steps
    .split('\n')
    .map((l) => l.replace(/^\d+\.\s*/, '').trim())
    .filter(Boolean),
);
const depTexts = pairs.flatMap((p) =>
  p.dependency_all
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#')),
);
const turnPool = pairs
  .flatMap((p) => [...p.model_1.conversation, ...p.model_2.conversation])
  .map((m) => ({ role: Object.keys(m)[0] as 'tutor' | 'student', text: Object.values(m)[0]! }));

const kcs = (round: number) =>
  Array.from({ length: KCS }, (_, i) =>
    i < depTexts.length
      ? { id: `dep${i}`, text: `${depTexts[i]}${round ? `_${round}` : ''}`, kind: 'dependency' as const }
      : { id: `step${i}`, text: `${stepTexts[i % stepTexts.length]} (part ${round}.${i})`, kind: 'step' as const },
  );
const dialogue = (round: number) =>
  Array.from({ length: TURNS }, (_, i) => ({
    role: i % 2 ? ('student' as const) : ('tutor' as const),
    text: `${turnPool[i % turnPool.length]!.text} [${round}.${i}]`,
  }));

const { base, child } = await startBuiltService(MODELS_AT_START);
const post = async (body: unknown) => {
  const res = await fetch(`${base}/trace-knowledge`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as { kcs: { id: string; p_after: number }[]; turns_total: number };
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${JSON.stringify(json).slice(0, 300)}`);
  return json;
};
async function measure(request: (round: number) => unknown | Promise<unknown>): Promise<{ p50: number; p99: number }> {
  const ms: number[] = [];
  for (let r = 0; r < ROUNDS + WARM_UP; r++) {
    const body = await request(r);
    const t = performance.now();
    await post(body);
    if (r >= WARM_UP) ms.push(performance.now() - t);
  }
  return { p50: q(ms, 0.5), p99: q(ms, 0.99) };
}
const results: Record<string, { p50: number; p99: number }> = {};
try {
  let fresh = 1000;
  results.cold = await measure(() => ({ kcs: kcs(++fresh), context: dialogue(fresh) }));
  results['new dialogue'] = await measure(() => ({ kcs: kcs(0), context: dialogue(++fresh) }));
  results.resent = await measure(() => ({ kcs: kcs(0), context: dialogue(0) }));
  results.incremental = await measure(async (r) => {
    // The estimate after 39 turns, then turn 40 (new each round) with it.
    const context = dialogue(0).slice(0, TURNS - 1);
    const before = await post({ kcs: kcs(0), context });
    return {
      kcs: kcs(0),
      context: [...context, { role: 'student', text: `I would call \`cursor.fetchall()\` next (${r}).` }],
      previous: Object.fromEntries(before.kcs.map((k) => [k.id, k.p_after])),
      previous_turns: before.turns_total,
    };
  });
} finally {
  child.kill('SIGTERM');
}
const figures = { kcs: KCS, turns: TURNS, rounds: ROUNDS, ms: results };
console.log(JSON.stringify({ trace_knowledge: figures }, null, 2));
writeResult('trace-knowledge', figures);
for (const [mode, r] of Object.entries(results)) {
  console.log(`trace-knowledge ${KCS} KCs × ${TURNS} turns, ${mode.padEnd(12)}: p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms (target p50 < 50 ms)`);
}
