// `npx tsx bench/guarded-eval.ts [--split evaluation|calibration] [--budget N] [--seeds 1,2,3] [--fluent-groups N]
// [--removal-budget N] [--removal-groups N] [--corpus FILE]`: the guarded reward's evaluation (src/redteam/evaluation.ts)
// on a split of the honest corpus (test/fixtures/plans/honest-corpus.json; the real plans of
// test/fixtures/plans/real-plans.json when it does not exist yet), both reward profiles: honest plans flagged and
// paid, adversary families and the fluent optimizer against the honest plans, and content removal. Writes
// bench/results/guarded-eval.json and prints a Markdown summary.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { GAMING_SIGNAL_CODES, REWARD_PROFILES } from '../src/contracts/gaming.js';
import { DEFAULT_RESOLVED } from '../src/plan/palette.js';
import { DEFAULT_PLAN_LIMITS } from '../src/plan/parse.js';
import { FAMILY_NAMES } from '../src/redteam/families.js';
import { evaluateGuarded, type GuardedEvaluation, groupsFromCorpus, groupsFromRecords, type HonestCorpus } from '../src/redteam/evaluation.js';
import { realPlans } from '../test/support/real-plans.js';
import { writeResult } from './results.js';

const { values } = parseArgs({
  options: {
    split: { type: 'string', default: 'evaluation' },
    corpus: { type: 'string', default: fileURLToPath(new URL('../test/fixtures/plans/honest-corpus.json', import.meta.url)) },
    budget: { type: 'string', default: '3000' },
    seeds: { type: 'string', default: '1,2,3' },
    'fluent-groups': { type: 'string', default: '10' },
    'removal-budget': { type: 'string', default: '400' },
    'removal-groups': { type: 'string', default: '20' },
    reference: { type: 'boolean', default: false },
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
const evaluation = evaluateGuarded(groups, {
  palette: DEFAULT_RESOLVED,
  limits: DEFAULT_PLAN_LIMITS,
  seed: 1,
  fluent: { budget, seeds, groups: fluentGroups },
  removal: { budget: removalBudget, groups: removalGroups },
  withReference: values.reference,
  log: (line) => console.log(`  ${line} (${((performance.now() - started) / 1000).toFixed(0)} s)`),
});

interface GuardedEvalFigures extends GuardedEvaluation {
  corpus: typeof corpus;
}
const figures: GuardedEvalFigures = { corpus, ...evaluation };
writeResult('guarded-eval', figures);
console.log(`\n${renderGuardedEval(figures)}`);

function renderGuardedEval(f: GuardedEvalFigures): string {
  const pct = (x: { count: number; share: number }) => `${x.count} (${(100 * x.share).toFixed(0)} %)`;
  const f3 = (x: number | null) => (x === null ? '—' : x.toFixed(3));
  const h = f.honest;
  const lines = [
    `Guarded-reward evaluation on ${f.corpus.file}${f.corpus.split ? `, split ${f.corpus.split}` : ''}: ${f.corpus.groups} groups, ${f.corpus.plans} honest plans.`,
    '',
    '**(a) Honest plans**',
    '',
    '| figure | value |',
    '| --- | --- |',
    `| flagged (any signal) | ${pct(h.flagged.any)} of ${h.plans - h.gated} |`,
    ...GAMING_SIGNAL_CODES.map((c) => `| flagged \`${c}\` | ${pct(h.flagged.signals[c])} |`),
    `| guarded ≥ 0.95 × paper | ${pct(h.guarded_at_least_95pct_of_paper)} |`,
    `| Spearman ρ (paper, guarded) | ${f3(h.spearman_paper_guarded)} |`,
    `| mean score paper / guarded | ${f3(h.mean_score.paper)} / ${f3(h.mean_score.guarded)} |`,
    `| gated (left out) | ${h.gated} |`,
    '',
    '**(b) Adversary families**: variants scoring at least the lowest honest plan of their group (and the best)',
    '',
    '| family | variants | groups | paper ≥ lowest | guarded ≥ lowest | guarded ≥ best | guarded worst: group, score vs lowest honest, signals |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...FAMILY_NAMES.filter((n) => f.families[n]).map((n) => {
      const fam = f.families[n]!;
      const p = fam.profiles.paper!;
      const g = fam.profiles.guarded!;
      const w = g.worst;
      return `| \`${n}\` | ${fam.variants} | ${fam.groups} | ${pct(p.at_or_above_lowest_honest)} | ${pct(g.at_or_above_lowest_honest)} | ${pct(g.at_or_above_best_honest)} | ${w ? `${w.group}: ${f3(w.score)} vs ${f3(w.lowest_honest)}, ${w.signals.join(', ') || 'none'}` : '—'} |`;
    }),
    '',
  ];
  if (f.fluent) {
    lines.push(
      `**(c) Fluent optimizer**: ${f.fluent.paper?.budget ?? f.fluent.guarded?.budget} evaluations per run, seeds ${(f.fluent.paper ?? f.fluent.guarded)!.seeds.join(', ')}, ${(f.fluent.paper ?? f.fluent.guarded)!.groups.length} groups`,
      '',
      '| profile | runs | best ≥ best honest | best ≥ lowest honest | max margin over best honest |',
      '| --- | --- | --- | --- | --- |',
      ...REWARD_PROFILES.filter((p) => f.fluent![p]).map((p) => {
        const x = f.fluent![p]!;
        return `| ${p} | ${x.runs} | ${pct(x.at_or_above_best_honest)} | ${pct(x.at_or_above_lowest_honest)} | ${f3(x.max_margin_over_best_honest)} |`;
      }),
      '',
    );
  }
  const r0 = f.removal.guarded ?? f.removal.paper;
  lines.push(
    `**(d) Removal**: walks of ${r0?.budget} evaluations per honest plan; "hollowed" = a visited plan with ≥ ${((r0?.share ?? 0.3) * 100).toFixed(0)} % of the plan's step words removed`,
    '',
    '| profile | plans | hollowed ≥ original | max (hollowed − original) | mean original / best hollowed | single edits: lowering / raising / unchanged |',
    '| --- | --- | --- | --- | --- | --- |',
    ...REWARD_PROFILES.filter((p) => f.removal[p]).map((p) => {
      const x = f.removal[p]!;
      const e = x.single_edits;
      return `| ${p} | ${x.plans} | ${pct(x.hollowed_at_or_above_original)} | ${f3(x.max_margin)} | ${f3(x.mean_original)} / ${f3(x.mean_max_hollowed)} | ${pct(e.lowering)} / ${pct(e.raising)} / ${pct(e.unchanged)} of ${e.edits} |`;
    }),
    '',
  );
  return lines.join('\n');
}
