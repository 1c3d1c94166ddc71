// The calibration split of the honest corpus (test/fixtures/plans/honest-corpus.json) fixes every threshold of
// the guarded reward (docs/rewards.md §10.2, §11), with the team's real plans: the code holds what scripts/corpus/fit-meaning.ts fits there,
// and no honest calibration plan raises a signal. What they give on the evaluation split is bench/guarded-eval.ts's.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { backgroundOf, calibrationGroups, fitRamps, fitSignals, measures } from '../../../scripts/corpus/fit-meaning.js';
import { DEFAULT_RESOLVED } from '../../../src/plan/palette.js';
import { DEFAULT_PLAN_LIMITS } from '../../../src/plan/parse.js';
import { spearman } from '../../../src/redteam/evaluation.js';
import { GAMING_THRESHOLDS } from '../../../src/rewards/gaming/thresholds.js';
import { MEANING } from '../../../src/rewards/meaning/thresholds.js';
import { evaluatePlan, groupContext } from '../../../src/scoring/evaluate-plan.js';
import { DEFAULT_SCORING } from '../../../src/scoring/score-groups.js';

const groups = calibrationGroups();

t.test('spearman gives what scipy 1.17.1 spearmanr gives', async (t) => {
  const cases: [number[], number[], number][] = [
    [[1, 2, 3, 4, 5], [5, 6, 7, 8, 7], 0.8207826816681233],
    [[1, 1, 2, 2, 3, 3, 4], [1, 2, 1, 2, 3, 4, 4], 0.8207547169811322],
    [[3.5, 1.2, 9.9, 4.4, 4.4, 0.1, 7.0, 2.2], [2.0, 1.0, 8.0, 5.0, 3.0, 0.5, 9.0, 2.5], 0.9461247469114745],
  ];
  for (const [x, y, expected] of cases) t.ok(Math.abs(spearman(x, y)! - expected) < 1e-12, `${spearman(x, y)} vs ${expected}`);
});

t.test('the calibration split holds both sources and only calibration questions', async (t) => {
  t.ok(groups.length >= 60, `${groups.length} groups`);
  t.same(new Set(groups.map((g) => g.source)), new Set(['coding-tutor', 'mathdial', 'team']));
  t.ok(groups.every((g) => g.split === 'calibration'));
});

t.test('the average plan is that of the calibration plans (npm run fit:meaning)', async (t) => {
  const file = JSON.parse(readFileSync(new URL('../../../models/word-vectors/background.json', import.meta.url), 'utf8')) as unknown;
  t.same(file, backgroundOf(groups));
});

t.test('the meaning ramps are what the calibration split gives (npm run fit:meaning)', async (t) => {
  const fitted = fitRamps(measures(groups));
  for (const [key, ramp] of Object.entries(fitted)) t.same(MEANING[key as keyof typeof fitted], ramp, key);
});

t.test('the signal thresholds are what it gives, and no honest calibration plan raises a signal', async (t) => {
  t.same(GAMING_THRESHOLDS, fitSignals(groups));
  for (const g of groups) {
    const ctx = groupContext(g.query, g.profile);
    for (const { style, plan } of g.plans) {
      const e = evaluatePlan(plan, ctx, DEFAULT_RESOLVED, DEFAULT_PLAN_LIMITS, {
        strict: true,
        lambda_hard: DEFAULT_SCORING.lambda_hard,
        reward_profile: 'guarded',
      });
      t.equal(e.gate.failed, false, `${g.id} ${style}: passes the strict gate`);
      t.same(e.gaming_flags, [], `${g.id} ${style}: ${e.gaming?.signals.map((s) => s.message).join('; ')}`);
    }
  }
});
