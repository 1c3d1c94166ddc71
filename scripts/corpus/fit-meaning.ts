// Fits the guarded reward's thresholds on the calibration split of the honest-plan corpus
// (test/fixtures/plans/honest-corpus.json) and nothing else: no plan written to game the reward is read here,
// so the adversary of bench/guarded-eval.ts meets thresholds that never saw it.
//
//   npx tsx scripts/corpus/fit-meaning.ts [--write]
//
// 1. The average plan: the mean of the calibration plans' vectors (models/word-vectors/background.json).
// 2. The specificity ramps (src/rewards/meaning/thresholds.ts): full credit from a low quantile of the honest
//    plans (and steps) against their own question; none up to a high quantile of the same plans against
//    another calibration question, which is what a plan about something else reads as.
// 3. The gaming signals' thresholds (src/rewards/gaming/thresholds.ts): the largest measure an honest
//    calibration plan reaches, so that none raises a signal.
// Without --write it prints what it fits beside what the code holds, and exits 1 when they differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GAMING_SIGNAL_CODES, type GamingSignalCode } from '../../src/contracts/gaming.js';
import { analyzePlan } from '../../src/plan/analyze.js';
import { DEFAULT_RESOLVED } from '../../src/plan/palette.js';
import { DEFAULT_PLAN_LIMITS } from '../../src/plan/parse.js';
import { readGaming } from '../../src/rewards/gaming/signals.js';
import { evaluatePlan, groupContext } from '../../src/scoring/evaluate-plan.js';
import { DEFAULT_SCORING } from '../../src/scoring/score-groups.js';
import type { Plan } from '../../src/contracts/plan.js';
import type { Profile } from '../../src/contracts/profile.js';
import { GAMING_THRESHOLDS } from '../../src/rewards/gaming/thresholds.js';
import { meaningContext, planVector, readPlanMeaning } from '../../src/rewards/meaning/read.js';
import { wordTable } from '../../src/rewards/meaning/word-vectors.js';
import type { CorpusGroup } from '../../src/redteam/evaluation.js';
import { MEANING } from '../../src/rewards/meaning/thresholds.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CORPUS = `${ROOT}test/fixtures/plans/honest-corpus.json`;
const REAL_PLANS = `${ROOT}test/fixtures/plans/real-plans.json`;
const BACKGROUND = `${ROOT}models/word-vectors/background.json`;

/**
 * The fitting rule: full credit from the `planFull` quantile of the honest plans (`stepFull` of their steps),
 * none from `planWidth` (`stepWidth`) below it, or for information from `informationShare` of it.
 */
const RULE = { planFull: 0.05, planWidth: 0.1, informationShare: 0.5, stepFull: 0.05, stepWidth: 0.15 };

/** A calibration group: the corpus's, or one of the team's real plans. */
type Group = Omit<CorpusGroup, 'source'> & { source: CorpusGroup['source'] | 'team' };

const quantile = (xs: readonly number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round(q * (s.length - 1))))]!;
};
const round = (x: number, up: boolean) => (up ? Math.ceil(x * 100) : Math.floor(x * 100)) / 100;

/**
 * The calibration split of the corpus, and the team's real plans (test/fixtures/plans/real-plans.json, each a group
 * of one): honest plans in a style of their own that name the learner's profile far more than the converted ones.
 */
export function calibrationGroups(): Group[] {
  const corpus = (JSON.parse(readFileSync(CORPUS, 'utf8')) as { groups: Group[] }).groups.filter((g) => g.split === 'calibration');
  const real = (JSON.parse(readFileSync(REAL_PLANS, 'utf8')) as { id: string; query: string; profile: Profile; plan: Plan }[]).map(
    (r): Group => ({
      id: r.id,
      source: 'team',
      split: 'calibration',
      query: r.query,
      profile: r.profile,
      reference: [],
      plans: [{ style: 'team', plan: r.plan }],
    }),
  );
  return [...corpus, ...real];
}

/** The background file the calibration plans make: the unit mean of their vectors (§11a), to 6 decimals. */
export function backgroundOf(groups: readonly Group[]) {
  const sum = new Float64Array(wordTable().dims);
  let plans = 0;
  for (const g of groups) {
    const ctx = meaningContext(g.query, g.profile);
    for (const { plan } of g.plans) {
      const v = planVector(plan, ctx);
      if (v === null) continue;
      plans++;
      for (let k = 0; k < sum.length; k++) sum[k]! += v[k]!;
    }
  }
  const norm = Math.hypot(...sum);
  return {
    source: 'test/fixtures/plans/honest-corpus.json, calibration split, and test/fixtures/plans/real-plans.json (scripts/corpus/fit-meaning.ts)',
    plans,
    average_plan: [...sum].map((x) => Number((x / norm).toFixed(6))),
  };
}

/** Each honest plan's and step's measures against its own question. */
export function measures(groups: readonly Group[]) {
  const plans = { specificity: [] as number[], information: [] as number[], coverage: [] as number[] };
  const steps: number[] = [];
  for (const g of groups) {
    const ctx = meaningContext(g.query, g.profile);
    const referenced = meaningContext(g.query, g.profile, g.reference.length > 0 ? g.reference : undefined);
    for (const { plan } of g.plans) {
      const m = readPlanMeaning(plan, ctx);
      plans.specificity.push(m.specificity);
      plans.information.push(m.information);
      for (const s of m.steps) steps.push(s.specificity);
      const covered = readPlanMeaning(plan, referenced).coverage;
      if (covered !== null) plans.coverage.push(covered);
    }
  }
  return { plans, steps };
}

export function fitRamps(m: ReturnType<typeof measures>) {
  const plan = round(quantile(m.plans.specificity, RULE.planFull), false);
  const information = round(quantile(m.plans.information, RULE.planFull), false);
  const step = round(quantile(m.steps, RULE.stepFull), false);
  return {
    specificity: { from: round(step - RULE.stepWidth, false), to: step },
    planSpecificity: { from: round(plan - RULE.planWidth, false), to: plan },
    planInformation: { from: round(information * RULE.informationShare, false), to: information },
  };
}

/** The largest measure of each gaming signal over the honest plans: each signal's threshold. */
export function fitSignals(groups: readonly Group[]): Record<GamingSignalCode, number> {
  const largest = Object.fromEntries(GAMING_SIGNAL_CODES.map((c) => [c, 0])) as Record<GamingSignalCode, number>;
  for (const g of groups) {
    const ctx = groupContext(g.query, g.profile);
    for (const { plan } of g.plans) {
      const e = evaluatePlan(plan, ctx, DEFAULT_RESOLVED, DEFAULT_PLAN_LIMITS, {
        strict: false,
        lambda_hard: DEFAULT_SCORING.lambda_hard,
        reward_profile: 'paper',
      });
      const reading = readGaming(analyzePlan(e.plan!, DEFAULT_RESOLVED), DEFAULT_RESOLVED, e.components!.pers, e.components!.ped, ctx);
      for (const c of GAMING_SIGNAL_CODES) largest[c] = Math.max(largest[c], reading.measures[c]);
    }
  }
  return Object.fromEntries(GAMING_SIGNAL_CODES.map((c) => [c, round(largest[c], true)])) as Record<GamingSignalCode, number>;
}

/** thresholds.ts with `values` in place of the numbers of `key: { from: …, to: … }` or `key: …` lines. */
function rewrite(file: string, values: Record<string, number | { from: number; to: number }>) {
  let text = readFileSync(file, 'utf8');
  for (const [key, v] of Object.entries(values)) {
    const pattern = typeof v === 'number' ? new RegExp(`(\\n  ${key}: )[-0-9.]+,`) : new RegExp(`(\\n  ${key}: )\\{ from: [-0-9.]+, to: [-0-9.]+ \\},`);
    if (!pattern.test(text)) throw new Error(`${file}: no ${key}`);
    text = text.replace(pattern, `$1${typeof v === 'number' ? v : `{ from: ${v.from}, to: ${v.to} }`},`);
  }
  writeFileSync(file, text);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const write = process.argv.includes('--write');
  const groups = calibrationGroups();
  const background = backgroundOf(groups);
  if (write) writeFileSync(BACKGROUND, `${JSON.stringify(background, null, 1)}\n`);
  const m = measures(groups);
  const fitted = fitRamps(m);
  if (write) rewrite(`${ROOT}src/rewards/meaning/thresholds.ts`, fitted);
  const held = { specificity: MEANING.specificity, planSpecificity: MEANING.planSpecificity, planInformation: MEANING.planInformation };
  // Not fit: the corpus's plans quote their references whole, so the split cannot say how much an honest paraphrase covers.
  console.log(
    `reference coverage of the honest plans: q${RULE.planFull} ${quantile(m.plans.coverage, RULE.planFull).toFixed(2)}, held ${JSON.stringify(MEANING.referenceCoverage)} (a choice)`,
  );
  console.log(JSON.stringify({ groups: groups.length, plans: m.plans.specificity.length, steps: m.steps.length, fitted, held }));
  // The signals read the meaning measures: fitted after the ramps, in a process that has the new ones.
  const signals = fitSignals(groups);
  if (write) rewrite(`${ROOT}src/rewards/gaming/thresholds.ts`, signals);
  console.log('signals fitted:', JSON.stringify(signals));
  console.log('signals held:  ', JSON.stringify(GAMING_THRESHOLDS));
}
