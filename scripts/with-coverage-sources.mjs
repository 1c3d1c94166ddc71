#!/usr/bin/env node
// Runs a command (the tap suite) with NODE_V8_COVERAGE set to a temporary directory, removed afterwards.
// tap measures coverage itself; the variable is there for tsx, which embeds the TypeScript sources in its
// source maps only when it is set. Without them v8-to-istanbul maps a whole compiled file to one line
// (tsx compiles each file to a few long lines) and every file reads as 100 % covered.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) throw new Error('usage: with-coverage-sources.mjs <command> [args…]');
const dir = mkdtempSync(join(tmpdir(), 'v8-coverage-'));
// Tests start the service as an unprivileged user too; its coverage file must land somewhere.
chmodSync(dir, 0o777);
const child = spawn(cmd, args, { stdio: 'inherit', env: { ...process.env, NODE_V8_COVERAGE: dir } });
const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
rmSync(dir, { recursive: true, force: true });
process.exit(code);
