// /score-plan 64 groups × 8 plans over HTTP, one client, with options.detail "full" and "rewards"
// interleaved: p50 latency and response size of each (what the trainer adapters save by asking for rewards).
import { benchBatch } from './realistic-plans.js';
import { startBuiltService } from './service.js';
import { writeResult } from './results.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const { base, child } = await startBuiltService();
const body = (detail: string) => JSON.stringify({ ...benchBatch(64, 8), run_id: null, options: { detail } });
const ms: Record<string, number[]> = { full: [], rewards: [] };
const bytes: Record<string, number> = {};
try {
  for (let i = 0; i < ROUNDS + 5; i++) {
    for (const detail of i % 2 ? ['full', 'rewards'] : ['rewards', 'full']) {
      const payload = body(detail);
      const t = performance.now();
      const res = await fetch(`${base}/score-plan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      if (i >= 5) ms[detail]!.push(performance.now() - t);
      bytes[detail] = text.length;
    }
  }
} finally {
  child.kill('SIGTERM');
}
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const figures = {
  batch: '64 groups × 8 plans',
  rounds: ROUNDS,
  ...Object.fromEntries(Object.keys(ms).map((d) => [d, { p50_ms: Number(p50(ms[d]!).toFixed(1)), response_bytes: bytes[d] }])),
};
console.log(JSON.stringify(figures, null, 2));
writeResult('detail', figures);
