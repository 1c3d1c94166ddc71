// `npm run bench`: scoring throughput and latency, in process and over HTTP, against JSON.parse of the
// same text in the same run. Figures are measured, never assumed; the targets are printed beside them.
// The headline rows score FRESH text (bench/fresh-plans.ts: every sentence new to the service each round,
// as a policy's samples are); the template batch, whose sentences repeat so the reading caches hit, is the
// second row.
import { loadConfig } from '../src/config.js';
import { DEFAULT_PLAN_LIMITS } from '../src/plan/parse.js';
import { performance } from 'node:perf_hooks';
import { CLIENT_WARM_UP, freshClientMs, stagesOf } from './fresh-client.js';
import { freshRunText, sentencesOf } from './fresh-plans.js';
import { benchBatch, parseBody } from './realistic-plans.js';
import { writeResult } from './results.js';
import { startBuiltService } from './service.js';

// The production build (`npm run bench` compiles it first), typed by its source.
const { scoreGroups, DEFAULT_SCORING } = (await import(
  new URL('../dist/scoring/score-groups.js', import.meta.url).href
)) as typeof import('../src/scoring/score-groups.js');

// The word-level reading alone, as the gaming signals do it for every sentence of fresh text: lowercase,
// split into words with each word's kind and stem found in the service's own table of known words (kept
// across requests as the service keeps it), and find the phase cues. Every reward that judges what a step
// says needs at least this much.
const { WordTable, stem, isFunctionWord, isStopword } = (await import(
  new URL('../dist/rewards/gaming/text.js', import.meta.url).href
)) as typeof import('../src/rewards/gaming/text.js');
const { cueSpans } = (await import(new URL('../dist/rewards/pedagogy/reward.js', import.meta.url).href)) as typeof import('../src/rewards/pedagogy/reward.js');
const wordKinds = new WordTable((word) => ({ word, kind: isFunctionWord(word) ? 0 : isStopword(word) ? 1 : 2, stem: stem(word) }), 50_000);
function wordReadingMs(sentences: readonly string[]): number {
  const t = performance.now();
  for (const sentence of sentences) {
    const lowered = sentence.toLowerCase();
    wordKinds.read(lowered);
    cueSpans(lowered);
  }
  return performance.now() - t;
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 100);
const HTTP_ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 60);
const limits = DEFAULT_PLAN_LIMITS;

const median = (xs: number[]) => quantile(xs, 0.5);
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}
const fmt = (x: number) => x.toFixed(2);

const plans = 64 * 8;
const template = benchBatch(64, 8);
const templateText = JSON.stringify(template);
// Round numbers of the fresh batches: in process, over HTTP, and each client's warm-up body, apart.
const IN_PROCESS_ROUND = (i: number) => 30_000 + i;
const HTTP_ROUND = (i: number) => 40_000 + i;
const WARM_UP_ROUND = 49_999;
const freshText = (round: number) => freshRunText(round, 64, 8);

/** The floor: JSON.parse of the body and of every completion in it. */
function parseMs(text: string): number {
  const t = performance.now();
  parseBody(text);
  return performance.now() - t;
}
function scoreMs(text: string): number {
  const req = JSON.parse(text) as Parameters<typeof scoreGroups>[0]; // untimed: the body as the route hands it over
  const t = performance.now();
  scoreGroups(req, limits, DEFAULT_SCORING);
  return performance.now() - t;
}

// Interleaved rounds: parse and score see the same machine state, so their ratio is stable on a noisy host.
// Fresh: a new batch every round (made untimed), so no round finds a sentence of another in a cache.
const fresh = {
  parse: [] as number[],
  score: [] as number[],
  ratios: [] as number[],
  bytes: [] as number[],
  reading: [] as number[],
  sentences: [] as number[],
};
const tpl = { parse: [] as number[], score: [] as number[], ratios: [] as number[] };
for (let i = 0; i < ROUNDS + 10; i++) {
  const text = freshText(IN_PROCESS_ROUND(i));
  const fp = parseMs(text);
  const fs = scoreMs(text);
  const sentences = sentencesOf(JSON.parse(text));
  const fr = wordReadingMs(sentences);
  const tp = parseMs(templateText);
  const ts = scoreMs(templateText);
  if (i < 10) continue; // warm-up
  fresh.parse.push(fp);
  fresh.score.push(fs);
  fresh.ratios.push(fs / fp);
  fresh.bytes.push(text.length);
  fresh.reading.push(fr / fp);
  fresh.sentences.push(sentences.length);
  tpl.parse.push(tp);
  tpl.score.push(ts);
  tpl.ratios.push(ts / tp);
}

// Over HTTP the service runs in its own process exactly as `npm start` runs it, and a fresh client process
// of its own sends 64×8 and 512×8 (4,096 plans, the request limit) in turn: per plan, the large request
// should cost what the small one does.
const HTTP_LARGE_ROUNDS = Number(process.env.BENCH_HTTP_LARGE_ROUNDS ?? 10);
// A trainer calls once per step, after generating for seconds: the service has rested (IDLE_COLLECT_MS
// passed) before each of its requests.
const PAUSE_MS = Number(process.env.BENCH_PAUSE_MS ?? 8000);
const PAUSED_ROUNDS = Number(process.env.BENCH_PAUSED_ROUNDS ?? 5);
// A rest past IDLE_COLLECT_MS: every thread has given back what the traffic grew, which the request regrows.
const COLLECTED_PAUSE_MS = loadConfig({}).IDLE_COLLECT_MS + 3000;
// The Server-Timing stages of a request counted in the default run, and its time outside the service.
const HTTP_STAGES = ['read', 'judge', 'store', 'compose', 'total', 'outside'] as const;
// A fresh client's first requests, timed apart (CLIENT_WARM_UP).
const COLD_CLIENT_REQUESTS = 15;
type Stages = Record<(typeof HTTP_STAGES)[number], number>;
async function httpLatencies() {
  const { base, child } = await startBuiltService();
  const stagesFrom = (ms: number[], headers: string[]): Stages[] =>
    headers.map((h, i) => {
      const s = stagesOf(h);
      if (HTTP_STAGES.some((k) => k !== 'outside' && s[k] === undefined))
        throw new Error(`a Server-Timing header without the stages of a request into a run: ${h}`);
      return { ...s, outside: ms[i]! - s.total! } as Stages;
    });
  try {
    // Fresh: each body sent once, after the client's warm-up on a body of its own (its times dropped).
    const freshBodies = Array.from({ length: HTTP_ROUNDS }, (_, i) => ({ body: freshText(HTTP_ROUND(i)) }));
    const freshRun = await freshClientMs(`${base}/score-plan`, [{ body: freshText(WARM_UP_ROUND) }, ...freshBodies], 1, 0);
    const freshMs = freshRun.ms.slice(1).flat();
    const freshStages = stagesFrom(freshMs, freshRun.serverTiming.slice(1).flat());
    const responseBytes = (
      await (await fetch(`${base}/score-plan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: freshBodies[0]!.body })).text()
    ).length;

    // The template batch: 64×8 and 512×8 in turn, then 64×8 alone, then after rests.
    const large = JSON.stringify(benchBatch(512, 8));
    const paired = await freshClientMs(`${base}/score-plan`, [{ body: templateText }, { body: large }], HTTP_LARGE_ROUNDS);
    const alone = await freshClientMs(`${base}/score-plan`, [{ body: templateText }], HTTP_ROUNDS - HTTP_LARGE_ROUNDS);
    const paused = await freshClientMs(`${base}/score-plan`, [{ body: templateText }], PAUSED_ROUNDS, 1, PAUSE_MS);
    const collected = await freshClientMs(`${base}/score-plan`, [{ body: templateText }], PAUSED_ROUNDS, 1, COLLECTED_PAUSE_MS);
    return {
      freshMs,
      freshStages,
      responseBytes,
      templateMs: [...paired.ms[0]!, ...alone.ms[0]!],
      pairedMs: paired.ms[0]!,
      largeMs: paired.ms[1]!,
      pausedMs: paused.ms[0]!,
      collectedMs: collected.ms[0]!,
      // What a client not yet warm sees: the first requests of each fresh client.
      coldClientMs: [freshRun, paired, alone, paused, collected].flatMap((c) => c.clientWarmUp.slice(0, COLD_CLIENT_REQUESTS)),
      largeBytes: large.length,
    };
  } finally {
    child.kill('SIGTERM');
  }
}
const http = await httpLatencies();

const ratio = (xs: number[]) => ({ p50: median(xs), p10: quantile(xs, 0.1), p90: quantile(xs, 0.9) });
const results = {
  batch: '64 groups × 8 plans',
  plans,
  rounds: ROUNDS,
  fresh: {
    body_bytes: { p50: median(fresh.bytes) },
    json_parse_ms: { p50: median(fresh.parse) },
    in_process_ms: { p50: median(fresh.score), p99: quantile(fresh.score, 0.99) },
    in_process_plans_per_s: Math.round(plans / (median(fresh.score) / 1000)),
    score_to_parse_ratio: ratio(fresh.ratios),
    sentences: median(fresh.sentences),
    word_reading_to_parse_ratio: ratio(fresh.reading),
    http_requests: http.freshMs.length,
    http_ms: { p50: median(http.freshMs), p99: quantile(http.freshMs, 0.99) },
    http_plans_per_s: Math.round(plans / (median(http.freshMs) / 1000)),
    // Where those requests' time went, each stage's median over them (the medians need not add up).
    http_stages_ms: Object.fromEntries(HTTP_STAGES.map((s) => [s, median(http.freshStages.map((x) => x[s]))])) as Stages,
    response_bytes: http.responseBytes,
  },
  template: {
    body_bytes: templateText.length,
    json_parse_ms: { p50: median(tpl.parse) },
    in_process_ms: { p50: median(tpl.score), p99: quantile(tpl.score, 0.99) },
    score_to_parse_ratio: ratio(tpl.ratios),
    http_requests: http.templateMs.length,
    http_ms: { p50: median(http.templateMs), p99: quantile(http.templateMs, 0.99) },
  },
  http_cold_client: { requests: http.coldClientMs.length, client_warm_up: CLIENT_WARM_UP, ms: { p50: median(http.coldClientMs) } },
  http_after_pause: { pause_ms: PAUSE_MS, rounds: PAUSED_ROUNDS, ms: { p50: median(http.pausedMs), max: Math.max(...http.pausedMs) } },
  http_after_collection: { pause_ms: COLLECTED_PAUSE_MS, rounds: PAUSED_ROUNDS, ms: { p50: median(http.collectedMs), max: Math.max(...http.collectedMs) } },
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
    `fresh, in process : p50 ${fmt(results.fresh.in_process_ms.p50)} ms; scoring ÷ parse p50 ${fmt(results.fresh.score_to_parse_ratio.p50)} (target ≤ 5)`,
    `fresh, HTTP       : p50 ${fmt(results.fresh.http_ms.p50)} ms, p99 ${fmt(results.fresh.http_ms.p99)} ms (target p50 ≤ 50 ms)`,
    `template, in proc.: p50 ${fmt(results.template.in_process_ms.p50)} ms; scoring ÷ parse p50 ${fmt(results.template.score_to_parse_ratio.p50)}`,
    `template, HTTP    : p50 ${fmt(results.template.http_ms.p50)} ms`,
    `HTTP 4,096        : p50 ${fmt(results.http_4096.ms.p50)} ms; per plan ${fmt(results.http_4096.per_plan_ratio)}× a 512-plan request's (target ≤ 1.1)`,
    `HTTP cold         : p50 ${fmt(results.http_cold_client.ms.p50)} ms, each fresh client's first ${COLD_CLIENT_REQUESTS} requests`,
    `HTTP paused       : p50 ${fmt(results.http_after_pause.ms.p50)} ms, max ${fmt(results.http_after_pause.ms.max)} ms, each request after ${PAUSE_MS / 1000} s of rest`,
    `HTTP collected    : p50 ${fmt(results.http_after_collection.ms.p50)} ms, max ${fmt(results.http_after_collection.ms.max)} ms, each request after ${COLLECTED_PAUSE_MS / 1000} s of rest`,
  ].join('\n'),
);
