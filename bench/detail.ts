// /score-plan 64 groups × 8 plans of fresh text (a new batch each round, both levels the same batch) over
// HTTP, one client, with options.detail "full" and "rewards" taking turns: p50 latency and response size of
// each, in all and per plan (what the trainer adapters, which ask for "rewards", save).
import { freshBatch } from './fresh-plans.js';
import { startBuiltService } from './service.js';
import { writeResult } from './results.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const PLANS = 64 * 8;
const { base, child } = await startBuiltService();
const ms: Record<string, number[]> = { full: [], rewards: [] };
const bytes: Record<string, number[]> = { full: [], rewards: [] };
try {
  for (let i = 0; i < ROUNDS + 5; i++) {
    const batch = freshBatch(70_000 + i, 64, 8);
    for (const detail of i % 2 ? ['full', 'rewards'] : ['rewards', 'full']) {
      const payload = JSON.stringify({ ...batch, options: { detail } });
      const t = performance.now();
      const res = await fetch(`${base}/score-plan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      if (i >= 5) {
        ms[detail]!.push(performance.now() - t);
        bytes[detail]!.push(Buffer.byteLength(text));
      }
    }
  }
} finally {
  child.kill('SIGTERM');
}
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const figures = {
  batch: '64 groups × 8 plans',
  text: 'fresh',
  rounds: ROUNDS,
  ...Object.fromEntries(
    Object.keys(ms).map((d) => [
      d,
      { p50_ms: Number(p50(ms[d]!).toFixed(1)), response_bytes: p50(bytes[d]!), bytes_per_plan: Math.round(p50(bytes[d]!) / PLANS) },
    ]),
  ),
};
console.log(JSON.stringify(figures, null, 2));
writeResult('detail', figures);
