// Two builds of the service side by side on one host, for a before/after table that a change in the
// host's load cannot skew: every figure is taken from each build in turn, the order flipped each round.
//
//   node --import tsx scripts/compare-builds.ts BEFORE_DIR AFTER_DIR [REPETITIONS]
//
// Each directory is a clone with its dependencies installed and `dist` built (`npm ci && npm run build`).
// Both builds get the same batches (this tree's benchBatch): in one process, their scoreGroups on 64×8 with
// JSON.parse of the same payloads as the floor; over HTTP, each started as `npm start` starts it, with a
// STATE_DIR of its own, the 64×8 round trip from a fresh client process. Prints one JSON object: per build,
// the median over repetitions of each repetition's median, and every repetition's figure.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchBatch, parseAll, payloadsOf } from '../bench/realistic-plans.js';
import { freshClientMs } from '../bench/fresh-client.js';
import { startBuiltService } from '../bench/service.js';

const [beforeDir, afterDir, reps = '3'] = process.argv.slice(2);
if (!beforeDir || !afterDir) throw new Error('usage: compare-builds.ts BEFORE_DIR AFTER_DIR [REPETITIONS]');
const REPETITIONS = Number(reps);
const IN_PROCESS_ROUNDS = Number(process.env.COMPARE_ROUNDS ?? 60);
const HTTP_ROUNDS = Number(process.env.COMPARE_HTTP_ROUNDS ?? 30);

type Batch = ReturnType<typeof benchBatch>;
interface Build {
  name: 'before' | 'after';
  root: URL;
  score: (batch: Batch) => unknown;
}

async function load(name: Build['name'], dir: string): Promise<Build> {
  const root = pathToFileURL(`${resolve(dir)}/`);
  const groups = await import(new URL('dist/scoring/score-groups.js', root).href);
  const { DEFAULT_PLAN_LIMITS } = await import(new URL('dist/plan/parse.js', root).href);
  return { name, root, score: (batch) => groups.scoreGroups(batch, DEFAULT_PLAN_LIMITS, groups.DEFAULT_SCORING) };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const round = (x: number, digits = 2) => Number(x.toFixed(digits));
function parseMs(payloads: string[]): number {
  const t = performance.now();
  parseAll(payloads);
  return performance.now() - t;
}

/** Each build's scoring ÷ JSON.parse, one repetition: the median over rounds of each round's ratio. */
function inProcess(builds: Build[], batches: Batch[]): Record<string, number> {
  const payloads = batches.map(payloadsOf);
  const ratios: Record<string, number[]> = { before: [], after: [] };
  for (let r = -5; r < IN_PROCESS_ROUNDS; r++) {
    const k = (r + 5) % batches.length;
    const floor = parseMs(payloads[k]!);
    for (const b of r % 2 ? builds : [...builds].reverse()) {
      const t = performance.now();
      b.score(batches[k]!);
      if (r >= 0) ratios[b.name]!.push((performance.now() - t) / floor);
    }
  }
  return { before: median(ratios.before!), after: median(ratios.after!) };
}

const inProcessRuns = { template: { before: [] as number[], after: [] as number[] }, own_wording: { before: [] as number[], after: [] as number[] } };
const httpRuns = { before: [] as number[], after: [] as number[] };
const loads: number[] = [];

const builds = [await load('before', beforeDir), await load('after', afterDir)];
const template = [benchBatch(64, 8)];
// Every sentence its own, eight batches in turn: no round finds the text of the round before.
const own = Array.from({ length: 8 }, (_, i) => benchBatch(64, 8, 100 + i, true));
const body = JSON.stringify(template[0]);
const states = builds.map(() => mkdtempSync(join(tmpdir(), 'compare-builds-')));
const services = await Promise.all(builds.map((b, i) => startBuiltService({ STATE_DIR: states[i]! }, b.root)));
try {
  for (let rep = 0; rep < REPETITIONS; rep++) {
    loads.push(loadavg()[0]!);
    const order = rep % 2 ? builds : [...builds].reverse();
    for (const [kind, batches] of [
      ['template', template],
      ['own_wording', own],
    ] as const) {
      const r = inProcess(order, batches);
      for (const b of builds) inProcessRuns[kind][b.name].push(r[b.name]!);
    }
    for (const b of order) {
      const { base } = services[builds.indexOf(b)]!;
      httpRuns[b.name].push(median((await freshClientMs(`${base}/score-plan`, [{ body }], HTTP_ROUNDS)).ms[0]!));
    }
  }
} finally {
  for (const s of services) s.child.kill();
  for (const d of states) rmSync(d, { recursive: true, force: true });
}

const figure = (runs: { before: number[]; after: number[] }, digits = 2) =>
  Object.fromEntries(builds.map((b) => [b.name, { median: round(median(runs[b.name]), digits), runs: runs[b.name].map((x) => round(x, digits)) }]));
console.log(
  JSON.stringify(
    {
      node: process.version,
      repetitions: REPETITIONS,
      loadavg_1min: loads.map((x) => round(x)),
      builds: { before: resolve(beforeDir), after: resolve(afterDir) },
      scoring_over_json_parse_64x8: { template: figure(inProcessRuns.template), own_wording: figure(inProcessRuns.own_wording) },
      http_64x8_p50_ms: figure(httpRuns, 1),
    },
    null,
    2,
  ),
);
