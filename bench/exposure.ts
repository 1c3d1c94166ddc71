// What keys, rate limiting and metrics cost per request: p50 latency of GET /health and of an 8×8
// /score-plan, with API keys and a rate limit configured and without (metrics are always on), measured on
// the production build, one request at a time, configurations alternated, medians of 3 rounds.
import { benchBatch } from './realistic-plans.js';
import { startBuiltService } from './service.js';
import { writeResult } from './results.js';

const KEY = 'bench-score-key-0123456789abcdef';
const CONFIGS: Record<string, Record<string, string>> = {
  open: {},
  'keys + rate limit': { API_KEYS: `score:${KEY}`, RATE_LIMIT_MAX: '100000000' },
};
const batch = JSON.stringify({ ...benchBatch(8, 8), run_id: null });

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function timed(n: number, call: () => Promise<Response>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await call();
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    ms.push(performance.now() - t0);
  }
  return p50(ms);
}

const results: Record<string, { health: number[]; score: number[] }> = {};
for (let round = 0; round < 3; round++) {
  for (const [name, env] of Object.entries(CONFIGS)) {
    const { base, child } = await startBuiltService(env);
    const headers = { 'content-type': 'application/json', ...(env.API_KEYS ? { authorization: `Bearer ${KEY}` } : {}) };
    await timed(200, () => fetch(`${base}/health`, { headers }));
    await timed(10, () => fetch(`${base}/score-plan`, { method: 'POST', headers, body: batch }));
    const r = (results[name] ??= { health: [], score: [] });
    r.health.push(await timed(3000, () => fetch(`${base}/health`, { headers })));
    r.score.push(await timed(60, () => fetch(`${base}/score-plan`, { method: 'POST', headers, body: batch })));
    child.kill('SIGTERM');
    await new Promise((r) => child.on('exit', r));
  }
}
console.log('| configuration | GET /health p50 (ms) | /score-plan 8×8 p50 (ms) |\n| --- | --- | --- |');
for (const [name, r] of Object.entries(results)) console.log(`| ${name} | ${p50(r.health).toFixed(3)} | ${p50(r.score).toFixed(1)} |`);
writeResult('exposure', {
  rounds: 3,
  health_requests: 3000,
  score_requests: 60,
  batch: '8 groups × 8 plans',
  configurations: Object.fromEntries(Object.entries(results).map(([name, r]) => [name, { health_p50_ms: p50(r.health), score_p50_ms: p50(r.score) }])),
});
