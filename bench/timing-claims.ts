// The timing claims the unit tests used to assert (issue 46: timing belongs in benches, not unit tests): each
// printed with its figure and the bound the test held it to. `node --import tsx bench/timing-claims.ts`.
// Nothing here fails the suite; a bound missed is printed as MISSED and sets the exit code.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE } from '../src/contracts/examples.js';
import { mulberry32 } from '../src/common/rng.js';
import { sentenceBleu } from '../src/metrics/text/bleu.js';
import { rouge } from '../src/metrics/text/rouge.js';
import { graphEditDistance, type DiGraph } from '../src/plan-metrics/ged.js';
import { evaluatePlanMetrics } from '../src/plan-metrics/index.js';
import { SentenceEncoder } from '../src/text/encoder.js';
import { fitSkill } from '../src/tracing/em.js';

let missed = 0;
function claim(what: string, figure: string, held: boolean): void {
  if (!held) missed++;
  console.log(`${held ? 'held  ' : 'MISSED'}  ${what}: ${figure}`);
}
const timed = <T>(f: () => T): { ms: number; value: T } => {
  const t0 = performance.now();
  const value = f();
  return { ms: performance.now() - t0, value };
};
const lcg = (seed: number) => {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff);
};

// fitSkill: time linear in the answers (test/tracing/em.test.ts): the fit of 2,000 learners against a tenth
// of them, fastest of five interleaved, so the machine's speed cancels out; linear gives ~10, quadratic ~100.
{
  const rng = mulberry32(55);
  const seqs = Array.from({ length: 2000 }, () => Array.from({ length: 15 + Math.floor(rng() * 11) }, () => rng() < 0.6));
  const fit = (s: boolean[][]) => timed(() => fitSkill(s, { tolerance: 0 })).ms;
  fit(seqs.slice(0, 50));
  const runs = [0, 1, 2, 3, 4].map(() => ({ small: fit(seqs.slice(0, 200)), full: fit(seqs) }));
  const ratio = Math.min(...runs.map((r) => r.full)) / Math.min(...runs.map((r) => r.small));
  claim('fitSkill, 2,000 learners against 200 (bound 40)', `ratio ${ratio.toFixed(1)}`, ratio < 40);
}

// sentenceBleu and ROUGE on 10 MB texts (test/metrics/text/bleu.test.ts, rouge.test.ts).
{
  const words = ['the', 'cat', 'sat', 'on', 'mat', '3.5', '1,000', 'x-1', '(a+b)', "don't", '&amp;', 'naïve', 'end.'];
  const next = lcg(7);
  const text = (bytes: number) => {
    let out = '';
    for (let i = 0; out.length < bytes; i++) out += words[next() % words.length]! + (i % 20 === 19 ? '.\n' : ' ');
    return out;
  };
  const a = text(10_000_000);
  const b = text(10_000_000);
  const bleu = timed(() => sentenceBleu(a, [b]));
  claim('sentenceBleu 10 MB vs 10 MB (bound 60 s)', `${bleu.ms.toFixed(0)} ms`, bleu.ms < 60_000);
  const n = timed(() => rouge(a, b, { stemmer: true, types: ['rouge1', 'rouge2'] }));
  claim('rouge1+rouge2 (stemmed) 10 MB vs 10 MB', `${n.ms.toFixed(0)} ms`, true);
  const l = timed(() => rouge(a, text(300), { stemmer: true, types: ['rougeL', 'rougeLsum'] }));
  claim('rougeL+rougeLsum 10 MB vs ~50 tokens', `${l.ms.toFixed(0)} ms`, true);
}

// graphEditDistance's budget (test/plan-metrics/ged.test.ts): a 40-node pair cut by a budget of 50 million.
{
  type Pair = { kind: string; g1: DiGraph; g2: DiGraph };
  const fixture = JSON.parse(readFileSync(new URL('../test/fixtures/ged/networkx-2.8.8.json', import.meta.url), 'utf8')) as { pairs: Pair[] };
  const big = fixture.pairs.find((p) => p.kind === 'big-40')!;
  const r = timed(() => graphEditDistance(big.g1, big.g2, { budget: 50_000_000 }));
  claim('GED of a 40-node pair with a budget of 50 million (bound 1,000 ms)', `${r.ms.toFixed(0)} ms`, r.ms < 1000 && !r.value.exact);
}

// The sentence encoder and the plan metrics (test/text/encoder.test.ts, test/plan-metrics/evaluate.test.ts).
{
  const encoder = await SentenceEncoder.fromDirectory(fileURLToPath(new URL('../models/use-lite', import.meta.url)), { cacheSize: 1000, batchSize: 32 });
  const t0 = performance.now();
  await encoder.tokenStates(['word '.repeat(200_000)]);
  const cut = performance.now() - t0;
  claim('a 1 MB text cut before tokenizing (bound 5,000 ms)', `${cut.toFixed(0)} ms`, cut < 5000);
  const embed = (texts: readonly string[]) => encoder.embed(texts);
  const one = () => evaluatePlanMetrics([{ plan: EXAMPLE_PLAN, profile: EXAMPLE_PROFILE }], { gold: EXAMPLE_PLAN, embed });
  await one();
  const runs = 20;
  const t1 = performance.now();
  for (let i = 0; i < runs; i++) await one();
  const per = (performance.now() - t1) / runs;
  claim('per-plan metrics of a 10-step plan, warm encoder cache (bound 100 ms)', `${per.toFixed(2)} ms`, per < 100);
}

if (missed > 0) process.exitCode = 1;
