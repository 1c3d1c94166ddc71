// A stalled write under SQLite (issue 77): another process holds runs.sqlite's write lock for HOLD_MS, as a
// slow disk or a long backup would hold up a commit, while 8 run requests wait for it and /health is probed
// every 20 ms. Reports the probes' latency during the stall and what the run requests got once it ended.
// The service as `npm start` runs it, on a fresh STATE_DIR.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { EXAMPLE_SCORE_REQUEST } from '../src/contracts/examples.js';
import { writeResult } from './results.js';
import { startBuiltService } from './service.js';
import { p50p99, statusCounts } from './stats.js';

const HOLD_MS = 2_000;
const dir = mkdtempSync(join(tmpdir(), 'slow-store-'));
const { base, child } = await startBuiltService({ STATE_DIR: dir });
const inRun = (key: string) =>
  fetch(`${base}/score-plan`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ ...EXAMPLE_SCORE_REQUEST, run_id: 'stall' }),
  });
try {
  if ((await inRun('first')).status !== 200) throw new Error('the first run request failed');
  const holder = new Database(join(dir, 'runs.sqlite'));
  holder.exec('BEGIN IMMEDIATE');
  const started = performance.now();
  const waiting = Array.from({ length: 8 }, (_, i) => inRun(`held-${i}`).then((r) => ({ status: r.status, ms: performance.now() - started })));
  const probes: number[] = [];
  while (performance.now() - started < HOLD_MS) {
    const t0 = performance.now();
    await fetch(`${base}/health`).then((r) => r.arrayBuffer());
    probes.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 20));
  }
  holder.exec('COMMIT');
  holder.close();
  const runs = await Promise.all(waiting);
  const figures = {
    hold_ms: HOLD_MS,
    health_probes: probes.length,
    health_ms: { ...p50p99(probes), max: Math.max(...probes) },
    run_requests: runs.length,
    run_statuses: statusCounts(runs),
    run_ms_max: Math.max(...runs.map((r) => r.ms)),
  };
  writeResult('slow-store', figures);
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\nwrote bench/results/slow-store.json\n`);
} finally {
  child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
