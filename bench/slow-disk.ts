// A slow disk under SQLite (issue 77): the service started with test/fixtures/slow-write (LD_PRELOAD), so
// that every write and sync of a file in its STATE_DIR waits SLOW_MS first, while two clients send run
// requests back to back for RUN_MS and /health is probed every 20 ms on a connection of its own. Reports the
// probes' latency, the run requests' answers and latency, and the plans the run counted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXAMPLE_SCORE_REQUEST } from '../src/contracts/examples.js';
import { slowDisk } from '../test/support/slow-write.js';
import { writeResult } from './results.js';
import { startBuiltService } from './service.js';
import { p50p99, statusCounts } from './stats.js';

const SLOW_MS = 10;
const RUN_MS = 5_000;
const dir = mkdtempSync(join(tmpdir(), 'slow-disk-'));
const { base, child } = await startBuiltService({ STATE_DIR: dir, ...slowDisk(SLOW_MS, dir) });
let sent = 0;
const inRun = async () => {
  const t0 = performance.now();
  const res = await fetch(`${base}/score-plan`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': `k-${sent++}` },
    body: JSON.stringify({ ...EXAMPLE_SCORE_REQUEST, run_id: 'slow', step: 0 }),
  });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - t0 };
};
try {
  const started = performance.now();
  const runs: Array<{ status: number; ms: number }> = [];
  const client = async () => {
    while (performance.now() - started < RUN_MS) runs.push(await inRun());
  };
  const clients = [client(), client()];
  const probes: number[] = [];
  while (performance.now() - started < RUN_MS) {
    const t0 = performance.now();
    await fetch(`${base}/health`, { headers: { connection: 'close' } }).then((r) => r.arrayBuffer());
    probes.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 20));
  }
  await Promise.all(clients);
  const run = (await (await fetch(`${base}/runs/slow`)).json()) as { open_step: { requests: number } | null };
  const ok = runs.filter((r) => r.status === 200);
  const figures = {
    slow_ms_per_write: SLOW_MS,
    seconds: RUN_MS / 1000,
    health_probes: probes.length,
    health_ms: { ...p50p99(probes), max: Math.max(...probes) },
    run_requests: runs.length,
    run_statuses: statusCounts(runs),
    run_ms: p50p99(ok.map((r) => r.ms)),
    acknowledged: ok.length,
    counted: run.open_step?.requests ?? 0,
  };
  writeResult('slow-disk', figures);
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\nwrote bench/results/slow-disk.json\n`);
} finally {
  child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
