// `npm run bench:probes`: GET /health as an orchestrator's liveness probe sends it (a new connection each time,
// from a lean process of its own, every 10 ms), against the service started as `npm start` starts it: on the
// service at rest; while IDLE_SOCKETS idle keep-alive connections are open, each answered one GET /health,
// from five client addresses so that together they pass MAX_CONNECTIONS (1,024) with no address past
// MAX_CONNECTIONS_PER_ADDRESS; and while four /score-plan requests of 4,096 plans each run at once
// (BENCH_ROUNDS rounds, default 3). p50, p99 and max of the probes answered, and how many got no answer.
// Writes bench/results/probes.json. `BENCH_ROOT=<another checkout, built>` measures that build the same way.
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EXAMPLE_SCORE_REQUEST } from '../src/contracts/examples.js';
import { writeResult } from './results.js';
import { startBuiltService } from './service.js';
import { quantile as q } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IDLE_SOCKETS = 1100;
const IDLE_PROBES = 500;
const root = process.env.BENCH_ROOT ? pathToFileURL(`${resolve(process.env.BENCH_ROOT)}/`) : undefined;
const round2 = (x: number) => Number(x.toFixed(2));

const { base, child } = await startBuiltService({}, root);
const { port } = new URL(base);

// A probe that gets no answer within PROBE_TIMEOUT_MS counts as failed, as a kubelet's would (its default
// timeout is 1 s; longer here, so that a slow answer is measured rather than counted as none).
const PROBE = `const { get } = require('node:http');
const [url, count] = [process.argv[1], Number(process.argv[2])];
let done = false;
process.on('message', () => (done = true));
const probe = () => new Promise((resolve) => {
  const t = performance.now();
  const req = get(url + '/health', { agent: false, headers: { connection: 'close' }, timeout: 5000 }, (res) => {
    res.resume();
    res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - t : null));
  });
  req.on('timeout', () => req.destroy());
  req.on('error', () => resolve(null));
});
(async () => {
  await probe();
  process.send('ready');
  const ms = [];
  let failed = 0;
  while (count > 0 ? ms.length + failed < count : !done) {
    const took = await probe();
    if (took === null) failed++;
    else ms.push(took);
    await new Promise((r) => setTimeout(r, 10));
  }
  process.send({ ms, failed });
})();`;

interface Probed {
  ms: number[];
  failed: number;
}

/** Probes `count` times, or (count 0) for as long as `work()` runs. */
async function probe(count: number, work: () => Promise<unknown> = async () => undefined): Promise<Probed> {
  const prober = spawn(process.execPath, ['-e', PROBE, base, String(count)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = () => new Promise<unknown>((resolve, reject) => prober.once('message', resolve).once('exit', reject));
  await next();
  const finished = count > 0 ? next() : undefined;
  try {
    await work();
  } finally {
    if (count === 0) prober.send('stop');
  }
  const result = (await (finished ?? next())) as Probed;
  prober.kill();
  return result;
}

const figures = (p: Probed) => ({
  probes: p.ms.length + p.failed,
  failed: p.failed,
  p50_ms: p.ms.length ? round2(q(p.ms, 0.5)) : null,
  p99_ms: p.ms.length ? round2(q(p.ms, 0.99)) : null,
  max_ms: p.ms.length ? round2(Math.max(...p.ms)) : null,
});

/** A keep-alive connection from `from` that has been answered one GET /health, or null when it got no answer. */
function idleConnection(from: string): Promise<Socket | null> {
  return new Promise((done) => {
    const socket = connect({ port: Number(port), host: '127.0.0.1', localAddress: from }, () => socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n'));
    socket.on('error', () => undefined);
    socket.once('data', (d) => done(d.toString().startsWith('HTTP/1.1 200') ? socket : null));
    socket.once('close', () => done(null));
  });
}

const atRest = await probe(IDLE_PROBES);

const sockets: Socket[] = [];
let unanswered = 0;
for (let i = 0; i < IDLE_SOCKETS; i++) {
  const s = await idleConnection(`127.0.0.${2 + (i % 5)}`);
  if (s) sockets.push(s);
  else unanswered++;
}
const openBefore = sockets.filter((s) => !s.destroyed && s.readyState === 'open').length;
const withIdle = await probe(IDLE_PROBES);
const openAfter = sockets.filter((s) => !s.destroyed && s.readyState === 'open').length;
for (const s of sockets) s.destroy();

// Realistic plans are 4.7 KB each, so 4,096 of them pass the 16 MiB body limit: the example plan is used, as bench/concurrency.ts does.
const heavy = JSON.stringify({
  run_id: null,
  groups: Array.from({ length: 512 }, () => ({
    ...EXAMPLE_SCORE_REQUEST.groups[0]!,
    completions: Array(8).fill(EXAMPLE_SCORE_REQUEST.groups[0]!.completions[0]),
  })),
});
const statuses: Record<string, number> = {};
const heavyMs: number[] = [];
const during: Probed = { ms: [], failed: 0 };
for (let r = 0; r < ROUNDS; r++) {
  const round = await probe(0, () =>
    Promise.all(
      Array.from({ length: 4 }, async () => {
        const t = performance.now();
        const res = await fetch(`${base}/score-plan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: heavy });
        await res.arrayBuffer();
        heavyMs.push(performance.now() - t);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }),
    ),
  );
  during.ms.push(...round.ms);
  during.failed += round.failed;
}
child.kill('SIGTERM');
await new Promise((r) => child.on('exit', r));

const result = {
  probe: 'GET /health on a new connection each time, every 10 ms, from a process of its own',
  at_rest: figures(atRest),
  idle_keep_alive: {
    connections: IDLE_SOCKETS,
    client_addresses: 5,
    unanswered,
    open_before_probing: openBefore,
    open_after_probing: openAfter,
    ...figures(withIdle),
  },
  score_plan_4x4096: {
    rounds: ROUNDS,
    requests: 4 * ROUNDS,
    body_mb: round2(Buffer.byteLength(heavy) / 2 ** 20),
    statuses,
    request_p50_ms: Math.round(q(heavyMs, 0.5)),
    ...figures(during),
  },
};
console.log(JSON.stringify(result, null, 2));
writeResult('probes', result);
