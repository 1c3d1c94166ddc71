import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { NOT_LOADED } from '../src/service/capability.js';

/** A process's resident memory, MiB (Linux). */
export const residentMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/**
 * A service whose traffic the benches time needs its models: it is started as the docs tell such a
 * deployment, with READY_REQUIRES naming them, so that they load at start and not in a timed request.
 */
export const MODELS_AT_START = { READY_REQUIRES: 'verify_turn,trace_knowledge' };

/**
 * The production build in its own process, started as `npm start` starts it; resolves with its address
 * once it is ready and every capability it loads at start has loaded, so no measurement overlaps model loading.
 */
export async function startBuiltService(
  env: Record<string, string> = {},
  root: URL = new URL('..', import.meta.url),
): Promise<{ base: string; child: ChildProcess }> {
  // package.json's start command itself, its environment included. It execs node (older builds' commands
  // do not: `exec env` does it for them), so the child's pid is node's, whose resident memory the benches read.
  const start = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const child = spawn('sh', ['-c', /\bexec\b/.test(start) ? start : `exec env ${start}`], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const base = await new Promise<string>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`service exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const msg = String((JSON.parse(line) as { msg?: string }).msg ?? '');
      if (msg.startsWith('Server listening at ')) resolve(msg.slice('Server listening at '.length));
    });
  });
  // A model that loads on its first use is not waited for.
  const lazy = (c: { reason: string }) => c.reason === NOT_LOADED;
  for (;;) {
    const ready = (await (await fetch(`${base}/ready`)).json()) as { ready: boolean; capabilities: Record<string, { ready: boolean; reason: string }> };
    const failed = Object.entries(ready.capabilities).find(([, c]) => !c.ready && c.reason !== 'loading' && !lazy(c));
    if (failed) {
      child.kill('SIGTERM');
      throw new Error(`${failed[0]} did not load: ${failed[1].reason}`);
    }
    if (ready.ready && Object.values(ready.capabilities).every((c) => c.ready || lazy(c))) return { base, child };
    await new Promise((r) => setTimeout(r, 50));
  }
}
