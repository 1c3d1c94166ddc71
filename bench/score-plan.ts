// `npm run bench`: scoring throughput and latency, in process and over HTTP, against JSON.parse of the
// same text in the same run. Figures are measured, never assumed; the targets are printed beside them.
import { DEFAULT_PLAN_LIMITS } from '../src/plan/parse.js';
import { performance } from 'node:perf_hooks';
import { CLIENT_WARM_UP, freshClientMs, stagesOf } from './fresh-client.js';
import { benchBatch, parseAll, payloadsOf } from './realistic-plans.js';
import { writeResult } from './results.js';
import { startBuiltService } from './service.js';

// The production build (`npm run bench` compiles it first), typed by its source.
const { scoreGroups, DEFAULT_SCORING } = (await import(
  new URL('../dist/scoring/score-groups.js', import.meta.url).href
)) as typeof import('../src/scoring/score-groups.js');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 100);
const HTTP_ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 60);
const limits = DEFAULT_PLAN_LIMITS;

const median = (xs: number[]) => quantile(xs, 0.5);
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}
const fmt = (x: number) => x.toFixed(2);

const batch = benchBatch(64, 8);
const plans = 64 * 8;
const completions = batch.groups.flatMap((g) => g.completions);
const payloads = payloadsOf(batch);

const scoreAll = () => scoreGroups(batch, limits, DEFAULT_SCORING);

// The same batch with every sentence its own (benchBatch's ownWording), as a model's samples are: the
// templates repeat each sentence across plans, and the scorer keeps the reading of a repeated text. Eight
// such batches taken in turn, so no round finds the text of the round before.
const ownBatches = Array.from({ length: 8 }, (_, i) => {
  const own = benchBatch(64, 8, 100 + i, true);
  return { batch: own, payloads: payloadsOf(own) };
});

// Interleaved rounds: parse and score see the same machine state, so their ratio is stable on a noisy host.
const parseMs: number[] = [];
const scoreMs: number[] = [];
const ratios: number[] = [];
const ownScoreMs: number[] = [];
const ownRatios: number[] = [];
for (let i = 0; i < ROUNDS + 10; i++) {
  let t = performance.now();
  parseAll(payloads);
  const p = performance.now() - t;
  t = performance.now();
  scoreAll();
  const s = performance.now() - t;
  const own = ownBatches[i % ownBatches.length]!;
  t = performance.now();
  parseAll(own.payloads);
  const ownP = performance.now() - t;
  t = performance.now();
  scoreGroups(own.batch, limits, DEFAULT_SCORING);
  const ownS = performance.now() - t;
  if (i < 10) continue; // warm-up
  parseMs.push(p);
  scoreMs.push(s);
  ratios.push(s / p);
  ownScoreMs.push(ownS);
  ownRatios.push(ownS / ownP);
}

// Over HTTP the service runs in its own process exactly as `npm start` runs it, and a fresh client process
// of its own sends 64×8 and 512×8 (4,096 plans, the request limit) in turn: per plan, the large request
// should cost what the small one does.
const HTTP_LARGE_ROUNDS = Number(process.env.BENCH_HTTP_LARGE_ROUNDS ?? 10);
// A trainer calls once per step, after generating for seconds: the service has rested (IDLE_COLLECT_MS
// passed) before each of its requests.
const PAUSE_MS = Number(process.env.BENCH_PAUSE_MS ?? 8000);
const PAUSED_ROUNDS = Number(process.env.BENCH_PAUSED_ROUNDS ?? 5);
const OWN_HTTP_ROUNDS = Number(process.env.BENCH_OWN_HTTP_ROUNDS ?? 4);
// The Server-Timing stages of a request counted in the default run, and its time outside the service.
const HTTP_STAGES = ['read', 'judge', 'store', 'compose', 'total', 'outside'] as const;
// A fresh client's first requests, timed apart (CLIENT_WARM_UP).
const COLD_CLIENT_REQUESTS = 15;
async function httpLatencies(): Promise<{
  ms: number[];
  /** Each of those requests' Server-Timing stages, and its time outside the service (round trip − total). */
  stages: Record<string, number>[];
  pairedMs: number[];
  largeMs: number[];
  pausedMs: number[];
  ownMs: number[];
  coldClientMs: number[];
  responseBytes: number;
  largeBytes: number;
}> {
  const { base, child } = await startBuiltService();
  try {
    const body = JSON.stringify(batch);
    const large = JSON.stringify(benchBatch(512, 8));
    const responseBytes = (await (await fetch(`${base}/score-plan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).text()).length;
    const paired = await freshClientMs(`${base}/score-plan`, [{ body }, { body: large }], HTTP_LARGE_ROUNDS);
    // The small request alone for the rest of its rounds, again from a fresh client.
    const alone = await freshClientMs(`${base}/score-plan`, [{ body }], HTTP_ROUNDS - HTTP_LARGE_ROUNDS);
    const paused = await freshClientMs(`${base}/score-plan`, [{ body }], PAUSED_ROUNDS, 1, PAUSE_MS);
    // The batches whose sentences are each plan's own, in turn: none finds its text in the workers' caches.
    const own = await freshClientMs(
      `${base}/score-plan`,
      ownBatches.map((o) => ({ body: JSON.stringify(o.batch) })),
      OWN_HTTP_ROUNDS,
      1,
    );
    return {
      ms: [...paired.ms[0]!, ...alone.ms[0]!],
      stages: [paired, alone].flatMap((c) =>
        c.serverTiming[0]!.map((h, i) => {
          const s = stagesOf(h);
          if (HTTP_STAGES.some((k) => k !== 'outside' && s[k] === undefined))
            throw new Error(`a Server-Timing header without the stages of a request into a run: ${h}`);
          return { ...s, outside: c.ms[0]![i]! - s.total! };
        }),
      ),
      pairedMs: paired.ms[0]!,
      largeMs: paired.ms[1]!,
      pausedMs: paused.ms[0]!,
      ownMs: own.ms.flat(),
      // What a client not yet warm sees: the first requests of each fresh client of the 64×8 batch.
      coldClientMs: [paired, alone, paused].flatMap((c) => c.clientWarmUp.slice(0, COLD_CLIENT_REQUESTS)),
      responseBytes,
      largeBytes: large.length,
    };
  } finally {
    child.kill('SIGTERM');
  }
}
const http = await httpLatencies();

const results = {
  batch: '64 groups × 8 plans',
  plans,
  completion_bytes: completions.reduce((n, c) => n + c.length, 0),
  rounds: ROUNDS,
  json_parse_ms: { p50: median(parseMs), p99: quantile(parseMs, 0.99) },
  in_process_ms: { p50: median(scoreMs), p99: quantile(scoreMs, 0.99) },
  in_process_plans_per_s: Math.round(plans / (median(scoreMs) / 1000)),
  score_to_parse_ratio: { p50: median(ratios), p10: quantile(ratios, 0.1), p90: quantile(ratios, 0.9) },
  own_wording: {
    in_process_ms: { p50: median(ownScoreMs) },
    score_to_parse_ratio: { p50: median(ownRatios), p10: quantile(ownRatios, 0.1), p90: quantile(ownRatios, 0.9) },
  },
  http_rounds: HTTP_ROUNDS,
  http_ms: { p50: median(http.ms), p99: quantile(http.ms, 0.99) },
  http_plans_per_s: Math.round(plans / (median(http.ms) / 1000)),
  // Where those requests' time went, each stage's median over them (the medians need not add up).
  http_stages_ms: Object.fromEntries(HTTP_STAGES.map((s) => [s, median(http.stages.map((x) => x[s]!))])) as Record<(typeof HTTP_STAGES)[number], number>,
  response_bytes: http.responseBytes,
  http_cold_client: { requests: http.coldClientMs.length, client_warm_up: CLIENT_WARM_UP, ms: { p50: median(http.coldClientMs) } },
  http_own_wording: { requests: http.ownMs.length, ms: { p50: median(http.ownMs), p99: quantile(http.ownMs, 0.99) } },
  http_after_pause: { pause_ms: PAUSE_MS, rounds: PAUSED_ROUNDS, ms: { p50: median(http.pausedMs), max: Math.max(...http.pausedMs) } },
  http_4096: {
    body_bytes: http.largeBytes,
    rounds: HTTP_LARGE_ROUNDS,
    ms: { p50: median(http.largeMs) },
    // Per plan, 4,096 in one request against 512 in one request: the median over rounds of the two sent in
    // turn by one client, each round's pair under the same load (the small request's later rounds, sent
    // alone, are not paired).
    per_plan_ratio: median(http.largeMs.map((large, i) => large / 4096 / (http.pairedMs[i]! / plans))),
  },
};
console.log(JSON.stringify(results, null, 2));
writeResult('score-plan', results);
console.log(
  [
    `in process : p50 ${fmt(results.in_process_ms.p50)} ms, p99 ${fmt(results.in_process_ms.p99)} ms, ${results.in_process_plans_per_s} plans/s`,
    `JSON.parse : p50 ${fmt(results.json_parse_ms.p50)} ms; scoring/parse ratio p50 ${fmt(results.score_to_parse_ratio.p50)} (target ≤ 3)`,
    `own text   : p50 ${fmt(results.own_wording.in_process_ms.p50)} ms; scoring/parse ratio p50 ${fmt(results.own_wording.score_to_parse_ratio.p50)}, every sentence its own`,
    `HTTP       : p50 ${fmt(results.http_ms.p50)} ms, p99 ${fmt(results.http_ms.p99)} ms (target p50 < 35 ms), ${results.http_plans_per_s} plans/s, from a fresh client`,
    `HTTP 4,096 : p50 ${fmt(results.http_4096.ms.p50)} ms; per plan ${fmt(results.http_4096.per_plan_ratio)}× a 512-plan request's (target ≤ 1.1)`,
    `HTTP cold  : p50 ${fmt(results.http_cold_client.ms.p50)} ms, each fresh client's first ${COLD_CLIENT_REQUESTS} requests`,
    `HTTP own   : p50 ${fmt(results.http_own_wording.ms.p50)} ms, every sentence its own`,
    `HTTP paused: p50 ${fmt(results.http_after_pause.ms.p50)} ms, max ${fmt(results.http_after_pause.ms.max)} ms, each request after ${PAUSE_MS / 1000} s of rest`,
  ].join('\n'),
);
