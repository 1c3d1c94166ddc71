// `npm run bench:gaming -- <baseline git ref>`: the gaming signals' calibration on the real plans, the
// red-team's exploit margins in both reward profiles, and /score-plan 64×8 latency against a build of the
// baseline ref, requests taken in turns. Writes bench/results/gaming.json; docs/rewards.md embeds its table
// (`npm run figures`).
import { DEFAULT_SCORING } from '../src/scoring/score-groups.js';
import { DEFAULT_PLAN_LIMITS } from '../src/plan/parse.js';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { GAMING_SIGNAL_CODES, type GamingSignalCode } from '../src/contracts/gaming.js';
import { absoluteScore, INITIAL_WEIGHTS } from '../src/grpo/compose.js';
import { analyzePlan } from '../src/plan/analyze.js';
import { DEFAULT_RESOLVED } from '../src/plan/palette.js';
import { readGaming } from '../src/rewards/gaming/signals.js';
import { GAMING_THRESHOLDS } from '../src/rewards/gaming/thresholds.js';
import { groupsOf, redTeam } from '../src/redteam/search.js';
import { readPlanMeaning } from '../src/rewards/meaning/read.js';
import { evaluatePlan, groupContext } from '../src/scoring/evaluate-plan.js';
import { realPlans, spearman } from '../test/support/real-plans.js';
import { renderGamingFigures, type GamingFigures } from './gaming-figures.js';
import { benchBatch } from './realistic-plans.js';
import { writeResult } from './results.js';
import { startBuiltService } from './service.js';

const baselineRef = process.argv[2];
if (!baselineRef) throw new Error('usage: npm run bench:gaming -- <baseline git ref>');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 60);
const REDTEAM_BUDGET = Number(process.env.REDTEAM_BUDGET ?? 1000);
const SEEDS = [1, 2, 3];
const LIMITS = DEFAULT_PLAN_LIMITS;
const root = fileURLToPath(new URL('..', import.meta.url));

// Calibration: every signal's measure on every real plan.
const plans = realPlans();
const signals = Object.fromEntries(
  GAMING_SIGNAL_CODES.map((c) => [c, { threshold: GAMING_THRESHOLDS[c], max_real: 0, raised: 0 }]),
) as GamingFigures['calibration']['signals'];
const paper: number[] = [];
const guarded: number[] = [];
for (const r of plans) {
  const context = groupContext(r.query, r.profile);
  const gate = { strict: false, lambda_hard: DEFAULT_SCORING.lambda_hard } as const;
  const e = evaluatePlan(r.plan, context, DEFAULT_RESOLVED, LIMITS, { ...gate, reward_profile: 'paper' });
  const reading = readGaming(analyzePlan(e.plan!, DEFAULT_RESOLVED), e.components!.pers, e.components!.ped, context, readPlanMeaning(e.plan!, context.meaning));
  for (const code of GAMING_SIGNAL_CODES as GamingSignalCode[]) {
    signals[code].max_real = Math.max(signals[code].max_real, reading.measures[code]);
    if (e.gaming_flags.includes(code)) signals[code].raised++;
  }
  paper.push(absoluteScore(e.raw, e.gate.failed, INITIAL_WEIGHTS));
  guarded.push(
    absoluteScore(evaluatePlan(r.plan, context, DEFAULT_RESOLVED, LIMITS, { ...gate, reward_profile: 'guarded' }).raw, e.gate.failed, INITIAL_WEIGHTS),
  );
}

// Red-team: the same seeded search in both profiles.
const groups = groupsOf(plans);
const margin = (profile: 'paper' | 'guarded') =>
  SEEDS.map((seed) => redTeam(groups, { profile, budget: REDTEAM_BUDGET, seed, palette: DEFAULT_RESOLVED, limits: LIMITS }).margin);
const redteam = { budget: REDTEAM_BUDGET, seeds: SEEDS, groups: groups.length, margin: { paper: margin('paper'), guarded: margin('guarded') } };
console.log('red-team margins', redteam.margin);

// Latency: the baseline ref built in a worktree beside this one, both services started as `npm start`
// starts them, one 64×8 request to each in turn.
const baselineDir = mkdtempSync(path.join(tmpdir(), 'bench-baseline-'));
execFileSync('git', ['worktree', 'add', '--detach', baselineDir, baselineRef], { cwd: root, stdio: 'inherit' });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  symlinkSync(path.join(root, 'node_modules'), path.join(baselineDir, 'node_modules'));
  execFileSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { cwd: baselineDir, stdio: 'inherit' });
  if (!existsSync(path.join(baselineDir, 'dist/main.js'))) throw new Error('the baseline did not build');
  const body = JSON.stringify(benchBatch(64, 8));
  const services = [await startBuiltService({}, pathToFileURL(`${baselineDir}/`)), await startBuiltService()];
  const ms: [number[], number[]] = [[], []];
  try {
    for (let i = 0; i < ROUNDS + 5; i++) {
      for (const [k, { base }] of services.entries()) {
        const t = performance.now();
        const res = await fetch(`${base}/score-plan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
        if (i >= 5) ms[k]!.push(performance.now() - t);
      }
    }
  } finally {
    for (const s of services) s.child.kill('SIGTERM');
  }
  const figures: GamingFigures = {
    calibration: { plans: plans.length, signals, spearman: spearman(paper, guarded) },
    redteam,
    latency: {
      baseline: baselineRef,
      rounds: ROUNDS,
      batch: '64 groups × 8 plans',
      p50_ms: { baseline: median(ms[0]), gaming: median(ms[1]) },
      ratio: median(ms[1]) / median(ms[0]),
    },
  };
  writeResult('gaming', figures);
  console.log(renderGamingFigures(figures));
} finally {
  execFileSync('git', ['worktree', 'remove', '--force', baselineDir], { cwd: root, stdio: 'inherit' });
}
