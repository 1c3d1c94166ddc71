#!/usr/bin/env node
// Runs a command (the tap suite) with NODE_V8_COVERAGE set to a temporary directory, removed afterwards
// (and, for tap, its per-file timeout scaled to the machine's load, below).
// tap measures coverage itself; the variable is there for tsx, which embeds the TypeScript sources in its
// source maps only when it is set. Without them v8-to-istanbul maps a whole compiled file to one line
// (tsx compiles each file to a few long lines) and every file reads as 100 % covered.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) throw new Error('usage: with-coverage-sources.mjs <command> [args…]');
// tap's per-file `timeout` (package.json) is what a file may take on a quiet machine. On a busy one, with
// more runnable processes than cores (the one-minute load average as the suite starts), each file gets
// longer in proportion: a busy machine makes a file slow, not wrong. The files that share a process scale
// theirs as each starts (test/support/shared-process.ts).
if (cmd === 'tap' && !args.some((a) => a.startsWith('--timeout'))) {
  const factor = loadavg()[0] / availableParallelism();
  if (factor > 1) {
    const timeout = Math.round(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).tap.timeout * factor);
    console.error(`load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores: ${timeout} s per test file`);
    args.push(`--timeout=${timeout}`);
  }
}
const dir = mkdtempSync(join(tmpdir(), 'v8-coverage-'));
// Tests start the service as an unprivileged user too; its coverage file must land somewhere.
chmodSync(dir, 0o777);
const child = spawn(cmd, args, { stdio: 'inherit', env: { ...process.env, NODE_V8_COVERAGE: dir } });
const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
rmSync(dir, { recursive: true, force: true });
process.exit(code);
