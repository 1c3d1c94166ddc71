import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A request the client sends every round; with `idempotencyKeys`, each time under a key of its own. */
export interface ClientRequest {
  body: string;
  headers?: Record<string, string>;
  idempotencyKeys?: boolean;
}

// Node's fetch sends a large body slowly over a new process's first few dozen requests, even to a bare
// node:http server. A trainer's client sends thousands, so the client first sends CLIENT_WARM_UP requests of
// the first kind, untimed, and those times are returned apart.
export const CLIENT_WARM_UP = 60;

// The client process: fetch, as a trainer's Node client would; the requests in turn, one at a time, each
// answer read whole. It prints its warm-up times and each request's round-trip times, ms, with the
// answer's Server-Timing header.
const CLIENT = `
import { readFileSync } from 'node:fs';
const spec = JSON.parse(readFileSync(process.argv[1], 'utf8'));
const bodies = spec.requests.map((r) => readFileSync(r.file));
const send = async (b, key) => {
  const r = spec.requests[b];
  const headers = { 'content-type': 'application/json', ...r.headers, ...(r.idempotencyKeys ? { 'idempotency-key': 'bench-' + process.pid + '-' + b + '-' + key } : {}) };
  const t = performance.now();
  const res = await fetch(spec.url, { method: 'POST', headers, body: bodies[b] });
  const text = await res.text();
  if (res.status !== 200) throw new Error('HTTP ' + res.status + ': ' + text.slice(0, 300));
  return [performance.now() - t, res.headers.get('server-timing') ?? ''];
};
const clientWarmUp = [];
for (let i = 0; i < spec.clientWarmUp; i++) clientWarmUp.push((await send(0, 'client-' + i))[0]);
const ms = spec.requests.map(() => []);
const serverTiming = spec.requests.map(() => []);
for (let i = 0; i < spec.rounds + spec.warmUp; i++) {
  if (spec.pauseMs > 0) await new Promise((r) => setTimeout(r, spec.pauseMs));
  for (let b = 0; b < bodies.length; b++) {
    const [took, timing] = await send(b, i);
    if (i >= spec.warmUp) {
      ms[b].push(took);
      serverTiming[b].push(timing);
    }
  }
}
process.stdout.write(JSON.stringify({ clientWarmUp, ms, serverTiming }));
`;

/**
 * A client's round trips, ms: each request's timed ones with their answers' Server-Timing headers, and the
 * first request's CLIENT_WARM_UP before them.
 */
export interface ClientTimes {
  ms: number[][];
  serverTiming: string[][];
  clientWarmUp: number[];
}

/** The stages of a Server-Timing header, ms by name. */
export function stagesOf(header: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of header.split(', ')) {
    const m = /^([a-z]+);dur=([\d.]+)$/.exec(part);
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
}

/**
 * Round trips of POST `url` with each request, in turn, timed by a client process of its own started for
 * this (not the bench's process, whose heap and JIT state would be measured with it), after the client's
 * warm-up and `warmUp` untimed rounds. With `pauseMs`, the client rests that long before each round, as a
 * trainer does while it generates.
 */
export async function freshClientMs(url: string, requests: ClientRequest[], rounds: number, warmUp = 3, pauseMs = 0): Promise<ClientTimes> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-client-'));
  try {
    const spec = {
      url,
      rounds,
      warmUp,
      clientWarmUp: CLIENT_WARM_UP,
      pauseMs,
      requests: requests.map((r, i) => {
        const file = join(dir, `${i}.json`);
        writeFileSync(file, r.body);
        return { file, headers: r.headers ?? {}, idempotencyKeys: r.idempotencyKeys ?? false };
      }),
    };
    writeFileSync(join(dir, 'spec.json'), JSON.stringify(spec));
    const child = spawn(process.execPath, ['--input-type=module', '-e', CLIENT, join(dir, 'spec.json')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    if (code !== 0) throw new Error(`the client process exited with ${code}`);
    return JSON.parse(out) as ClientTimes;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
