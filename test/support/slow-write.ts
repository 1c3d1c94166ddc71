import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = fileURLToPath(new URL('../fixtures/slow-write/slow-write.c', import.meta.url));

/**
 * test/fixtures/slow-write/slow-write.c built into a shared library (with the machine's `cc`, as npm ci
 * builds better-sqlite3): a process started with `slowDisk(...)` in its environment waits `ms` before every
 * write and sync of a file whose path contains `match`, and fails them with EIO while the file `failIf` exists.
 */
export function slowDisk(ms: number, match: string, failIf?: string): Record<string, string> {
  const out = join(mkdtempSync(join(tmpdir(), 'slow-write-')), 'slow-write.so');
  execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', out, SOURCE, '-ldl']);
  return { LD_PRELOAD: out, SLOW_WRITE_MS: String(ms), SLOW_WRITE_MATCH: match, ...(failIf && { SLOW_WRITE_FAIL_IF: failIf }) };
}
