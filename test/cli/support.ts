import { execFile } from 'node:child_process';
import { builtNode, ROOT } from '../support/children.js';

/** Runs the built CLI as a child process, `env` added to ours; resolves with its exit code and output. */
export function cli(args: string[], nodeArgs: string[] = [], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(...builtNode('cli/plan-reward', args, nodeArgs), { cwd: ROOT, maxBuffer: 16 << 20, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}
