// The guarded reward's evaluation (src/redteam/evaluation.ts), a smoke run on three real-plan groups with
// small budgets: every figure is there with its population, shares lie in [0, 1], counts add up; and the
// paper profile, known to be gameable, pays a fluent_hollow plan more than the honest plan of its group.
import t from 'tap';
import { GAMING_SIGNAL_CODES } from '../../src/contracts/gaming.js';
import { DEFAULT_RESOLVED } from '../../src/plan/palette.js';
import { DEFAULT_PLAN_LIMITS } from '../../src/plan/parse.js';
import { evaluateGuarded, groupsFromCorpus, groupsFromRecords, type HonestCorpus, spearman, spreadGroups } from '../../src/redteam/evaluation.js';
import { FAMILY_NAMES } from '../../src/redteam/families.js';
import { realPlans } from '../support/real-plans.js';

const groups = groupsFromRecords(realPlans()).slice(0, 3);
const steps = groups.reduce((n, g) => n + g.plans.reduce((k, h) => k + h.plan.steps.length, 0), 0);
const run = () =>
  evaluateGuarded(groups, {
    palette: DEFAULT_RESOLVED,
    limits: DEFAULT_PLAN_LIMITS,
    seed: 1,
    fluent: { budget: 40, seeds: [1, 2], groups: 2 },
    removal: { budget: 40, groups: 2 },
  });
const r = run();

/** Every { count, share } in a figure tree, with its path. */
function shares(x: unknown, path = ''): [string, { count: number; share: number }][] {
  if (x === null || typeof x !== 'object') return [];
  const o = x as Record<string, unknown>;
  if (typeof o.count === 'number' && typeof o.share === 'number') return [[path, o as { count: number; share: number }]];
  return Object.entries(o).flatMap(([k, v]) => (k === 'plan' ? [] : shares(v, `${path}.${k}`)));
}

t.test('shares lie in [0, 1] and agree with their counts', async (t) => {
  const all = shares(r);
  t.ok(all.length > 50, `${all.length} shares`);
  for (const [path, s] of all) {
    t.ok(s.share >= 0 && s.share <= 1, `${path}: ${s.share}`);
    t.ok(Number.isInteger(s.count) && s.count >= 0, `${path}: ${s.count}`);
    if (s.count === 0) t.equal(s.share, 0, path);
  }
});

t.test('(a) honest plans', async (t) => {
  t.equal(r.groups, 3);
  t.equal(r.honest.plans, 3);
  t.equal(r.honest.gated, 0);
  t.same(Object.keys(r.honest.flagged.signals).sort(), [...GAMING_SIGNAL_CODES].sort());
  for (const code of GAMING_SIGNAL_CODES) t.ok(r.honest.flagged.signals[code].count <= r.honest.flagged.any.count, code);
  t.ok(r.honest.spearman_paper_guarded === null || Math.abs(r.honest.spearman_paper_guarded) <= 1 + 1e-12);
  t.ok(r.honest.mean_score.guarded <= r.honest.mean_score.paper + 1e-9, 'guarded never pays more than paper on average');
});

t.test('(b) every family, both profiles', async (t) => {
  t.same(Object.keys(r.families), [...FAMILY_NAMES]);
  for (const name of FAMILY_NAMES) {
    const f = r.families[name]!;
    t.ok(f.variants >= 10 * 3, `${name}: ${f.variants} variants`);
    t.equal(f.groups, 3, name);
    t.equal(f.gated, 0, `${name}: none gated`);
    for (const p of ['paper', 'guarded'] as const) {
      const x = f.profiles[p]!;
      t.ok(x.at_or_above_best_honest.count <= x.at_or_above_lowest_honest.count, `${name} ${p}: best ≤ lowest count`);
      t.ok(x.worst && x.worst.margin === x.worst.score - x.worst.lowest_honest, `${name} ${p}: worst example`);
    }
  }
});

t.test('the paper profile is gameable: fluent_hollow beats an honest plan under it', async (t) => {
  const paper = r.families.fluent_hollow!.profiles.paper!;
  t.ok(paper.at_or_above_best_honest.count >= 1, `${paper.at_or_above_best_honest.count} variants at or above the best honest plan`);
  t.ok(paper.worst!.score > paper.worst!.best_honest, `${paper.worst!.group}: ${paper.worst!.score} over ${paper.worst!.best_honest}`);
});

t.test('(c) fluent optimizer and (d) removal', async (t) => {
  for (const p of ['paper', 'guarded'] as const) {
    const f = r.fluent![p]!;
    t.equal(f.runs, 4, `${p}: 2 groups × 2 seeds`);
    t.equal(f.groups.length, 2);
    t.ok(f.per_run.every((x) => x.evaluations === 40 && x.best >= x.start));
    t.ok(f.at_or_above_best_honest.count <= f.at_or_above_lowest_honest.count);
    const d = r.removal[p]!;
    t.equal(d.plans, 2, `${p}: removal on 2 plans`);
    t.equal(d.share, 0.3);
    const e = d.single_edits;
    t.equal(e.edits, 2 * steps, 'two single edits per honest step');
    t.equal(e.lowering.count + e.raising.count + e.unchanged.count, e.edits);
    for (const x of d.per_plan) t.ok(x.max_hollowed === null || (x.max_hollowed >= 0 && x.max_hollowed <= 1));
  }
});

t.test('the same options give the same figures; (c) and (d) can be left out', async (t) => {
  t.same(run(), r);
  const quick = evaluateGuarded(groups.slice(0, 2), {
    palette: DEFAULT_RESOLVED,
    limits: DEFAULT_PLAN_LIMITS,
    fluent: false,
    removal: false,
    families: ['two_step_minimal'],
  });
  t.equal(quick.fluent, null);
  t.same(Object.keys(quick.families), ['two_step_minimal']);
  t.equal(quick.removal.guarded!.plans, 0);
});

t.test('helpers: corpus splits, spread groups, Spearman', async (t) => {
  const corpus: HonestCorpus = {
    version: 1,
    groups: [
      { ...groups[0]!, source: 'coding-tutor', split: 'calibration', reference: [] },
      { ...groups[1]!, source: 'mathdial', split: 'evaluation', reference: [] },
    ],
  };
  t.same(
    groupsFromCorpus(corpus, 'evaluation').map((g) => g.id),
    [groups[1]!.id],
  );
  t.equal(groupsFromCorpus(corpus).length, 2);
  t.same(spreadGroups([1, 2, 3, 4, 5, 6], 3), [1, 3, 5]);
  t.same(spreadGroups([1, 2], 3), [1, 2]);
  t.equal(spearman([1, 2, 3], [10, 20, 30]), 1);
  t.equal(spearman([1, 2, 3], [3, 2, 1]), -1);
  t.equal(spearman([1, 1, 1], [1, 2, 3]), null);
  t.ok(Math.abs(spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7])! - 0.8207826816681233) < 1e-12, 'scipy spearmanr');
});
