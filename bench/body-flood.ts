// Bodies that never end (issue 77): 1,100 connections from five loopback addresses each send the headers of a
// 1 MB /score-plan and then a byte of its body every 2 s, without a key (none is configured), while another
// address sends an API request every 200 ms for 15 s, each on a fresh connection, and /health alongside.
// Reports what the API requests and the probes got. The service as `npm start` runs it, on a fresh STATE_DIR.
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXAMPLE_PLAN } from '../src/contracts/examples.js';
import { writeResult } from './results.js';
import { startBuiltService } from './service.js';
import { p50p99, statusCounts } from './stats.js';

const FLOOD = 1_100;
const ADDRESSES = ['127.0.1.1', '127.0.1.2', '127.0.1.3', '127.0.1.4', '127.0.1.5'];
const PROBE_MS = 200;
const PROBES = 75;
const dir = mkdtempSync(join(tmpdir(), 'body-flood-'));
const { base, child } = await startBuiltService({ STATE_DIR: dir });
const { port } = new URL(base);

/** One request on a connection of its own; its status with the error's code (0: no answer within 10 s). */
function once(method: string, path: string, body?: string): Promise<{ status: string; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, agent: false, timeout: 10_000, headers: body ? { 'content-type': 'application/json' } : {} },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => {
          const code = res.statusCode === 200 ? '' : ` ${/"code":"([a-z_]+)"/.exec(text)?.[1] ?? ''}`;
          resolve({ status: `${res.statusCode}${code}`, ms: performance.now() - t0 });
        });
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve({ status: 'no answer', ms: performance.now() - t0 }));
    req.end(body);
  });
}

const flood: Socket[] = [];
let floodClosed = 0;
try {
  for (let i = 0; i < FLOOD; i++) {
    const socket = connect({ port: Number(port), host: '127.0.0.1', localAddress: ADDRESSES[i % ADDRESSES.length]! });
    socket.on('error', () => undefined);
    socket.on('close', () => floodClosed++);
    socket.write(`POST /score-plan HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{`);
    flood.push(socket);
  }
  const trickle = setInterval(() => {
    for (const s of flood) if (!s.destroyed) s.write(' ');
  }, 2_000);
  const body = JSON.stringify({ plan: EXAMPLE_PLAN });
  const api: Array<Promise<{ status: string; ms: number }>> = [];
  const health: Array<Promise<{ status: string; ms: number }>> = [];
  for (let i = 0; i < PROBES; i++) {
    api.push(once('POST', '/validate-plan', body));
    health.push(once('GET', '/health'));
    await new Promise((r) => setTimeout(r, PROBE_MS));
  }
  const [apiDone, healthDone] = [await Promise.all(api), await Promise.all(health)];
  clearInterval(trickle);
  const figures = {
    flood_connections: FLOOD,
    flood_addresses: ADDRESSES.length,
    flood_closed_by_service: floodClosed,
    probe_interval_ms: PROBE_MS,
    api: {
      requests: apiDone.length,
      statuses: statusCounts(apiDone),
      ms: p50p99(apiDone.map((x) => x.ms)),
    },
    health: {
      requests: healthDone.length,
      statuses: statusCounts(healthDone),
      ms: p50p99(healthDone.map((x) => x.ms)),
    },
  };
  writeResult('body-flood', figures);
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\nwrote bench/results/body-flood.json\n`);
} finally {
  for (const s of flood) s.destroy();
  child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
