// What a bench writes: bench/results/<name>.json, its figures with the date and the machine they were
// measured on. The docs embed tables rendered from these files (bench/figures.ts), never typed figures.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';

/** The machine a bench ran on, and how busy it was. */
interface Machine {
  cpus: number;
  cpu_model: string;
  memory_gib: number;
  os: string;
  node: string;
  /** The build measured (`git rev-parse --short HEAD`, `+changes` when tracked files other than results and docs differ from it; or BENCH_COMMIT where the tree is not a clone). */
  commit: string | null;
  /** os.loadavg() (1, 5, 15 minutes) as the bench began and as it ended. */
  loadavg_start: number[];
  loadavg_end: number[];
  seconds: number;
}

export interface BenchResult<F = unknown> {
  bench: string;
  /** When the bench ended (ISO 8601, UTC). */
  date: string;
  /** Absent only from results written before benches recorded it. */
  machine?: Machine;
  figures: F;
}

// Taken when a bench imports this module, that is as it starts.
const started = { at: performance.now(), loadavg: loadavg() };
const round2 = (xs: number[]) => xs.map((x) => Number(x.toFixed(2)));

function commit(): string | null {
  if (process.env.BENCH_COMMIT) return process.env.BENCH_COMMIT;
  try {
    return commitOf('.');
  } catch {
    return null;
  }
}

/**
 * The commit a clone at `dir` holds, `+changes` when its tracked files differ from it. Results and the docs
 * they are rendered into are not what is measured, so changes there do not count.
 */
export function commitOf(dir: string): string {
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  const changed = git('status', '--porcelain', '--untracked-files=no', '--', '.', ':!bench/results', ':!docs', ':!README.md');
  return `${git('rev-parse', '--short', 'HEAD')}${changed ? '+changes' : ''}`;
}

const resultUrl = (name: string) => new URL(`results/${name}.json`, import.meta.url);

/** Writes bench/results/<name>.json: `figures` with today's date and this machine's facts. */
export function writeResult<F>(name: string, figures: F): BenchResult<F> {
  const result: BenchResult<F> = {
    bench: name,
    date: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model ?? 'unknown',
      memory_gib: Number((totalmem() / 2 ** 30).toFixed(1)),
      os: `${process.platform} ${release()}`,
      node: process.version,
      commit: commit(),
      loadavg_start: round2(started.loadavg),
      loadavg_end: round2(loadavg()),
      seconds: Math.round((performance.now() - started.at) / 1000),
    },
    figures,
  };
  writeFileSync(resultUrl(name), `${JSON.stringify(result, null, 2)}\n`);
  console.log(`wrote bench/results/${name}.json; \`npm run figures\` embeds its tables in the docs`);
  return result;
}

/** The committed result of bench `name`. */
export function readResult<F>(name: string): BenchResult<F> {
  return JSON.parse(readFileSync(resultUrl(name), 'utf8')) as BenchResult<F>;
}
