// The Python client's TRL reward function called as TRL calls it (bench/python_client.py), for
// bench/python-client.ts and scripts/compare-builds.ts: the batches it is given and one run of it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freshBatch } from './fresh-plans.js';

const HARNESS = fileURLToPath(new URL('python_client.py', import.meta.url));
const PYTHON = process.env.PYTHON ?? 'python3';

/** `count` calls' batches from seed `first` on: per call, 64 prompts, each with its learner and 8 sampled plans, all new. */
export function trlBatches(first: number, count: number) {
  return Array.from({ length: count }, (_, k) => ({
    groups: freshBatch(first + k, 64, 8).groups.map((g, i) => ({
      prompt: `${g.query} (learner request ${i + 1})`,
      profile: g.profile,
      completions: g.completions,
    })),
  }));
}

export interface HarnessRun {
  call_ms: number[];
  floor_ms: number[];
  request_bytes: number;
  response_bytes: number;
  groups_in_request: number;
  python: string;
}

/** One run of the harness with `root`'s Python client against the service at `base`: `warmup` calls, then `calls` timed. */
export function runTrlHarness(root: URL, base: string, batchesFile: string, warmup: number, calls: number): HarnessRun {
  const run = spawnSync(PYTHON, [HARNESS, base, `python-client-${Date.now()}`, batchesFile, String(warmup), String(calls)], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: fileURLToPath(new URL('clients/python', root)), PYTHONDONTWRITEBYTECODE: '1' },
    maxBuffer: 1 << 24,
  });
  if (run.status !== 0) throw new Error(`${PYTHON} ${HARNESS} exited with ${run.status}:\n${run.error?.message ?? run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as HarnessRun;
}
