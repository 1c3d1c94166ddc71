import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { builtNode, ROOT } from './children.js';

export interface Service {
  base: string;
  child: ChildProcess;
  /** Every JSON log line so far. */
  lines: Record<string, unknown>[];
  waitForLine(pred: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/**
 * The real entry point (dist/main.js, built from src/main.ts) in a child process on a free port; resolves
 * once it has started and (unless `store` is false) its run store is ready, since a PostgreSQL state is
 * reached after the port opens. `wrap` runs it under another command (e.g. `unshare` for a private mount).
 */
export async function startService(env: Record<string, string>, wrap: string[] = [], { store = true }: { store?: boolean } = {}): Promise<Service> {
  const [node, nodeArgs] = builtNode('main');
  const [cmd, ...args] = [...wrap, node, ...nodeArgs] as [string, ...string[]];
  const child = spawn(cmd, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: Record<string, unknown>[] = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(JSON.parse(line) as Record<string, unknown>);
    waiters.splice(0).forEach((w) => {
      w();
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitForLine = async (pred: (l: Record<string, unknown>) => boolean) => {
    for (;;) {
      const hit = lines.find(pred);
      if (hit) return hit;
      const more = new Promise<void>((r) => waiters.push(r));
      const ended = await Promise.race([more.then(() => false), exited.then(() => true)]);
      if (ended && !lines.some(pred)) throw new Error(`service exited before logging the expected line; last: ${JSON.stringify(lines.at(-1))}`);
    }
  };
  const listening = await waitForLine((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening at http://127.0.0.1:'));
  await waitForLine((l) => l.msg === 'service started');
  if (store) await waitForLine((l) => l.msg === 'run state store ready');
  return { base: String(listening.msg).replace('Server listening at ', ''), child, lines, waitForLine, exited };
}
