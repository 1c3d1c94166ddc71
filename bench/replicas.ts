// `npm run bench:replicas`: what sharing run state costs. One built service on PostgreSQL, then three on
// one PostgreSQL database, each fed the same training-like load: steps of 6 concurrent /score-plan
// requests (8 groups × 8 plans each, one run, Idempotency-Keys), the next step sent when the last one is
// answered, for BENCH_SECONDS. On a 2-core machine three replicas share the same two cores, so this
// shows the cost of coordination rather than a gain. Needs TEST_POSTGRES_URL (the npm script starts a
// throwaway cluster).
import { benchBatch } from './realistic-plans.js';
import { startBuiltService } from './service.js';
import { writeResult } from './results.js';
import { freshPostgresUrl } from '../test/support/stores.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const PER_STEP = 6;
const batch = benchBatch(8, 8);

async function load(bases: string[]): Promise<{ steps_per_s: number; requests_per_s: number; step_p50_ms: number }> {
  const end = performance.now() + SECONDS * 1000;
  const stepMs: number[] = [];
  for (let step = 0; performance.now() < end; step++) {
    const t = performance.now();
    await Promise.all(
      Array.from({ length: PER_STEP }, async (_, i) => {
        const res = await fetch(`${bases[i % bases.length]!}/score-plan`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': `${step}-${i}` },
          body: JSON.stringify({ ...batch, run_id: 'bench', step }),
        });
        if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
      }),
    );
    stepMs.push(performance.now() - t);
  }
  const total = stepMs.reduce((a, b) => a + b, 0) / 1000;
  return {
    steps_per_s: Number((stepMs.length / total).toFixed(2)),
    requests_per_s: Number(((stepMs.length * PER_STEP) / total).toFixed(1)),
    step_p50_ms: Math.round([...stepMs].sort((a, b) => a - b)[stepMs.length >> 1]!),
  };
}

async function measure(processes: number) {
  const url = await freshPostgresUrl();
  const services = [];
  for (let i = 0; i < processes; i++) services.push(await startBuiltService({ STATE_URL: url }));
  try {
    await load(services.map((s) => s.base)); // warm-up pass is not reported
    return await load(services.map((s) => s.base));
  } finally {
    for (const s of services) s.child.kill('SIGTERM');
  }
}

const one = await measure(1);
const three = await measure(3);
const figures = {
  seconds: SECONDS,
  requests_per_step: PER_STEP,
  batch: '8 groups × 8 plans',
  one_process: one,
  three_replicas: three,
  ratio: Number((three.requests_per_s / one.requests_per_s).toFixed(2)),
};
console.log(JSON.stringify(figures, null, 2));
writeResult('replicas', figures);
