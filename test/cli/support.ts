import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Runs the CLI from source as a child process; resolves with its exit code and output. */
export function cli(args: string[], nodeArgs: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgs, '--import', 'tsx', 'src/cli/plan-reward.ts', ...args],
      { cwd: ROOT, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
      },
    );
  });
}
