#!/usr/bin/env node
// Runs a command with TEST_POSTGRES_URL pointing at a throwaway PostgreSQL cluster, stopped and removed when
// the command ends. With TEST_POSTGRES_URL already set, just runs the command.
import { spawn } from 'node:child_process';
import { startCluster } from './pg-cluster.mjs';

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) throw new Error('usage: with-postgres.mjs <command> [args…]');
const run = (env) => {
  const child = spawn(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
};
if (process.env.TEST_POSTGRES_URL) process.exit(await run({}));

let cluster;
try {
  cluster = await startCluster();
} catch (e) {
  console.error(e.message);
  process.exit(1);
}
let code = 1;
try {
  code = await run({ TEST_POSTGRES_URL: cluster.url });
} finally {
  cluster.remove();
}
process.exit(code);
