// `npx tsx bench/guarded-eval.ts [--split evaluation|calibration] [--budget N] [--seeds 1,2,3] [--fluent-groups N]
// [--removal-budget N] [--removal-groups N] [--corpus FILE]`: the guarded reward's evaluation (src/redteam/evaluation.ts)
// on a split of the honest corpus (test/fixtures/plans/honest-corpus.json; the real plans of
// test/fixtures/plans/real-plans.json when it does not exist yet), both reward profiles: honest plans flagged and
// paid, adversary families and the fluent optimizer against the honest plans, and content removal; each twice,
// scored without and with the group's reference (docs/rewards.md §11j). Writes bench/results/guarded-eval.json
// and prints its tables (bench/guarded-eval-figures.ts, as docs/rewards.md embeds them).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_RESOLVED } from '../src/plan/palette.js';
import { DEFAULT_PLAN_LIMITS } from '../src/plan/parse.js';
import { evaluateGuarded, groupsFromCorpus, groupsFromRecords, type HonestCorpus } from '../src/redteam/evaluation.js';
import { realPlans } from '../test/support/real-plans.js';
import { type GuardedEvalFigures, renderGuardedEval } from './guarded-eval-figures.js';
import { readResult, writeResult } from './results.js';

const { values } = parseArgs({
  options: {
    split: { type: 'string', default: 'evaluation' },
    corpus: { type: 'string', default: fileURLToPath(new URL('../test/fixtures/plans/honest-corpus.json', import.meta.url)) },
    budget: { type: 'string', default: '3000' },
    seeds: { type: 'string', default: '1,2,3' },
    'fluent-groups': { type: 'string', default: '10' },
    'removal-budget': { type: 'string', default: '400' },
    'removal-groups': { type: 'string', default: '20' },
  },
});
if (values.split !== 'evaluation' && values.split !== 'calibration') throw new Error(`--split must be evaluation or calibration, not ${values.split}`);
const positive = (name: string, v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, not ${v}`);
  return n;
};
const budget = positive('budget', values.budget);
const seeds = values.seeds.split(',').map((s) => positive('seeds', s.trim()));
const fluentGroups = positive('fluent-groups', values['fluent-groups']);
const removalBudget = positive('removal-budget', values['removal-budget']);
const removalGroups = positive('removal-groups', values['removal-groups']);

// The corpus's split, or the real plans (each a group of one plan) until the corpus exists.
const fromCorpus = existsSync(values.corpus);
const groups = fromCorpus ? groupsFromCorpus(JSON.parse(readFileSync(values.corpus, 'utf8')) as HonestCorpus, values.split) : groupsFromRecords(realPlans());
if (groups.length === 0) throw new Error(`no group of split ${values.split} in ${values.corpus}`);
const corpus = {
  file: fromCorpus ? 'test/fixtures/plans/honest-corpus.json' : 'test/fixtures/plans/real-plans.json (+ the example plan)',
  split: fromCorpus ? values.split : null,
  groups: groups.length,
  plans: groups.reduce((n, g) => n + g.plans.length, 0),
  sources: [...new Set(groups.map((g) => g.source ?? 'real-plans'))],
};
console.log(
  `${corpus.file}${corpus.split ? `, split ${corpus.split}` : ' (the honest corpus does not exist yet)'}: ${corpus.groups} groups, ${corpus.plans} honest plans`,
);

const started = performance.now();
const run = (withReference: boolean) =>
  evaluateGuarded(groups, {
    palette: DEFAULT_RESOLVED,
    limits: DEFAULT_PLAN_LIMITS,
    seed: 1,
    fluent: { budget, seeds, groups: fluentGroups },
    removal: { budget: removalBudget, groups: removalGroups },
    withReference,
    log: (line) => console.log(`  ${withReference ? 'reference' : 'no reference'}: ${line} (${((performance.now() - started) / 1000).toFixed(0)} s)`),
  });

const figures: GuardedEvalFigures = { corpus, without_reference: run(false), with_reference: fromCorpus ? run(true) : null };
writeResult('guarded-eval', figures);
console.log(`\n${renderGuardedEval(readResult<GuardedEvalFigures>('guarded-eval'))}`);
