// `npm run bench`: scoring throughput and latency, in process and over HTTP, against JSON.parse of the
// same text in the same run. Figures are measured, never assumed; the targets are printed beside them.
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { ConfigSchema } from '../src/config.js';
import { extractPlanObject } from '../src/plan/extract.js';
import { scoreGroups } from '../src/scoring/score-groups.js';
import { benchBatch } from './realistic-plans.js';

const ITER = Number(process.env.BENCH_ITERATIONS ?? 60);
const config = { ...ConfigSchema.parse({}), LOG_LEVEL: 'silent' as const };
const limits = { maxCompletionBytes: config.MAX_COMPLETION_BYTES, maxStepsPerPlan: config.MAX_STEPS_PER_PLAN };

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}
function time(fn: () => void, iterations: number): number[] {
  for (let i = 0; i < 5; i++) fn();
  const out: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    fn();
    out.push(performance.now() - t);
  }
  return out;
}
const fmt = (x: number) => x.toFixed(2);

const batch = benchBatch(64, 8);
const plans = 64 * 8;
// The JSON payload of every completion, as the parse baseline: the same bytes the scorer must read.
const payloads = batch.groups.flatMap((g) =>
  g.completions.map((c) => {
    const start = c.indexOf('{');
    const end = c.lastIndexOf('}');
    return c.slice(start, end + 1);
  }),
);
const bytes = batch.groups.reduce((n, g) => n + g.completions.reduce((m, c) => m + c.length, 0), 0);

const parse = time(() => {
  for (const p of payloads) {
    try {
      JSON.parse(p);
    } catch {
      /* truncated completions fail to parse in both paths */
    }
  }
}, ITER);
const extract = time(() => {
  for (const g of batch.groups) for (const c of g.completions) extractPlanObject(c);
}, ITER);
const score = time(() => scoreGroups(batch, limits, { lambda_hard: config.LAMBDA_HARD }), ITER);

const { app } = await buildApp(config);
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
const body = JSON.stringify(batch);
const http: number[] = [];
let responseBytes = 0;
for (let i = 0; i < ITER + 5; i++) {
  const t = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/score-plan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 300)}`);
  if (i >= 5) http.push(performance.now() - t);
  responseBytes = text.length;
}
await app.close();

const p50 = quantile(score, 0.5);
const parseP50 = quantile(parse, 0.5);
const results = {
  batch: '64 groups × 8 plans',
  plans,
  completion_bytes: bytes,
  iterations: ITER,
  json_parse_ms: { p50: parseP50, p99: quantile(parse, 0.99) },
  extract_ms: { p50: quantile(extract, 0.5) },
  in_process_ms: { p50, p99: quantile(score, 0.99) },
  in_process_plans_per_s: Math.round(plans / (p50 / 1000)),
  score_to_parse_ratio: p50 / parseP50,
  http_ms: { p50: quantile(http, 0.5), p99: quantile(http, 0.99) },
  http_plans_per_s: Math.round(plans / (quantile(http, 0.5) / 1000)),
  request_bytes: body.length,
  response_bytes: responseBytes,
};
console.log(JSON.stringify(results, null, 2));
console.log(
  [
    `in process : p50 ${fmt(p50)} ms, p99 ${fmt(results.in_process_ms.p99)} ms, ${results.in_process_plans_per_s} plans/s`,
    `JSON.parse : p50 ${fmt(parseP50)} ms → scoring/parse ratio ${fmt(results.score_to_parse_ratio)} (target ≤ 5)`,
    `HTTP       : p50 ${fmt(results.http_ms.p50)} ms, p99 ${fmt(results.http_ms.p99)} ms (target p50 < 100 ms), ${results.http_plans_per_s} plans/s`,
  ].join('\n'),
);
