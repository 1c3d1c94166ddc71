import { mulberry32 } from '../common/rng.js';
import { GAMING_SIGNAL_CODES, REWARD_PROFILES, type GamingSignalCode, type RewardProfile } from '../contracts/gaming.js';
import type { Plan } from '../contracts/plan.js';
import type { Profile } from '../contracts/profile.js';
import type { ResolvedPalette } from '../plan/palette.js';
import type { PlanLimits } from '../plan/parse.js';
import { groupContext } from '../scoring/evaluate-plan.js';
import { adversaryFamilies, FAMILY_NAMES, type FamilyName, type HonestGroup, materialOf } from './families.js';
import { fluentSearch, maxScoreWithRemoved, removalSearch, scorer, singleRemovalEdits } from './fluent-search.js';

// Does the guarded reward pay honest plans what the paper pays them, and adversaries less than honest plans?
// The figures, on groups of honest plans (a split of test/fixtures/plans/honest-corpus.json, or the real plans):
//   (a) honest plans: the share flagged per signal, the share guarded pays 95 % or more of what paper pays,
//       and the rank correlation of the two profiles' scores;
//   (b) each adversary family: how many of its variants score at least the lowest honest plan of their group;
//   (c) the fluent optimizer: how many of its runs end at or above the best (and the lowest) honest plan;
//   (d) removal: how high a plan with 30 % or more of an honest plan's words taken away still scores, and
//       which single deletions or hollowings raise or lower an honest plan's score.

/** A group of the honest-plan corpus (test/fixtures/plans/honest-corpus.json; docs/rewards.md §11.1). */
export interface CorpusGroup extends HonestGroup {
  source: 'coding-tutor' | 'mathdial';
  split: 'calibration' | 'evaluation';
  reference: readonly string[];
}

/** The corpus file's shape. */
export interface HonestCorpus {
  version: number;
  sources?: Record<string, unknown>;
  groups: CorpusGroup[];
}

/** A corpus's groups, of one split when given. */
export function groupsFromCorpus(corpus: HonestCorpus, split?: string): HonestGroup[] {
  return corpus.groups.filter((g) => split === undefined || g.split === split);
}

/** Records of real plans ({id, query, profile, plan}, as in test/fixtures/plans/real-plans.json), each a group of one plan. */
export function groupsFromRecords(records: readonly { id?: string; query: string; profile: Profile; plan: Plan }[]): HonestGroup[] {
  return records.map((r, i) => ({ id: r.id ?? `record-${i}`, query: r.query, profile: r.profile, plans: [{ style: 'real', plan: r.plan }] }));
}

interface Share {
  count: number;
  /** count ÷ the figure's population; 0 when it is empty. */
  share: number;
}
const share = (count: number, of: number): Share => ({ count, share: of === 0 ? 0 : count / of });

/** Spearman's ρ: Pearson's correlation of the ranks (ties get their mean rank); null when either side is constant or too short. */
export function spearman(xs: readonly number[], ys: readonly number[]): number | null {
  const ranks = (v: readonly number[]) => {
    const order = v.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
    const r = new Array<number>(v.length);
    for (let i = 0; i < order.length; ) {
      let j = i;
      while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
      for (let k = i; k <= j; k++) r[order[k]![1]] = (i + j) / 2 + 1;
      i = j + 1;
    }
    return r;
  };
  if (xs.length < 2) return null;
  const rx = ranks(xs);
  const ry = ranks(ys);
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const mx = mean(rx);
  const my = mean(ry);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < rx.length; i++) {
    sxy += (rx[i]! - mx) * (ry[i]! - my);
    sxx += (rx[i]! - mx) ** 2;
    syy += (ry[i]! - my) ** 2;
  }
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}

export interface EvaluateGuardedOptions {
  palette: ResolvedPalette;
  limits: PlanLimits;
  /** Seed of the adversary families (default 1). */
  seed?: number;
  /** Families to generate (default all). */
  families?: readonly FamilyName[];
  /** (c), or false to skip it. Defaults: 3000 evaluations per run, seeds 1, 2, 3, on 10 groups spread over the list. */
  fluent?: false | { budget?: number; seeds?: readonly number[]; groups?: number };
  /** (d), or false to skip the searches (the single edits are still counted). Defaults: 400 evaluations per plan, 20 groups, every honest plan of each, 30 %. */
  removal?: false | { budget?: number; groups?: number; plansPerGroup?: number; share?: number };
  /** Profiles (b), (c) and (d) are reported for (default both). */
  profiles?: readonly RewardProfile[];
  /** Progress lines. */
  log?: (line: string) => void;
  /** Score with each group's reference (docs/rewards.md §11j). */
  withReference?: boolean;
}

interface HonestFigures {
  groups: number;
  plans: number;
  /** Honest plans that fail the hard gate (left out of every comparison below). */
  gated: number;
  /** Honest plans raising a gaming signal: any, and per signal. */
  flagged: { any: Share; signals: Record<GamingSignalCode, Share> };
  /** Honest plans the guarded profile pays at least 95 % of the paper's score. */
  guarded_at_least_95pct_of_paper: Share;
  /** Spearman's ρ of paper and guarded scores over the honest plans. */
  spearman_paper_guarded: number | null;
  mean_score: Record<RewardProfile, number>;
}

/** The variant that beats the lowest honest plan of its group by the most (or comes closest). */
interface Worst {
  group: string;
  score: number;
  lowest_honest: number;
  best_honest: number;
  margin: number;
  signals: GamingSignalCode[];
  plan: Plan;
}

interface FamilyProfileFigures {
  /** Variants scoring at least the lowest honest plan of their group. */
  at_or_above_lowest_honest: Share;
  /** Variants scoring at least the best honest plan of their group. */
  at_or_above_best_honest: Share;
  mean_score: number;
  worst: Worst | null;
}

interface FamilyFigures {
  variants: number;
  /** Groups with one variant or more. */
  groups: number;
  /** Variants that fail the hard gate (should be 0). */
  gated: number;
  profiles: Partial<Record<RewardProfile, FamilyProfileFigures>>;
}

interface FluentRun {
  group: string;
  seed: number;
  start: number;
  best: number;
  best_honest: number;
  lowest_honest: number;
  signals: GamingSignalCode[];
  evaluations: number;
}

interface FluentFigures {
  budget: number;
  seeds: number[];
  groups: string[];
  runs: number;
  at_or_above_best_honest: Share;
  at_or_above_lowest_honest: Share;
  /** The largest best − best honest over the runs. */
  max_margin_over_best_honest: number;
  per_run: FluentRun[];
  /** The run whose best plan beats its group's best honest plan by the most. */
  worst: (FluentRun & { plan: Plan }) | null;
}

interface RemovalPlan {
  group: string;
  style: string;
  original: number;
  /** The highest score of a visited plan with at least `share` of the words removed (null: none visited). */
  max_hollowed: number | null;
  visited: number;
}

interface RemovalFigures {
  share: number;
  budget: number;
  plans: number;
  /** Plans for which some visited plan with ≥ share of the words removed scores at least the original / more than it. */
  hollowed_at_or_above_original: Share;
  hollowed_above_original: Share;
  /** The largest max_hollowed − original over the plans. */
  max_margin: number;
  mean_original: number;
  mean_max_hollowed: number;
  per_plan: RemovalPlan[];
  /** The plan with the largest margin, hollowed. */
  worst: (RemovalPlan & { plan: Plan }) | null;
  /** Over every single edit that deletes a step or replaces its text with a generic sentence, of every honest plan. */
  single_edits: { edits: number; lowering: Share; raising: Share; unchanged: Share };
}

export interface GuardedEvaluation {
  groups: number;
  profiles: RewardProfile[];
  seed: number;
  honest: HonestFigures;
  families: Partial<Record<FamilyName, FamilyFigures>>;
  fluent: Partial<Record<RewardProfile, FluentFigures>> | null;
  removal: Partial<Record<RewardProfile, RemovalFigures>>;
}

/** Up to n groups spread evenly over the list (all when fewer). */
export function spreadGroups<T>(xs: readonly T[], n: number): T[] {
  if (xs.length <= n) return [...xs];
  return Array.from({ length: n }, (_, i) => xs[Math.floor((i * xs.length) / n)]!);
}

const EPS = 1e-9;
const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

/** The guarded reward's evaluation on `groups` (the caller picks the split): figures (a)–(d). */
export function evaluateGuarded(groups: readonly HonestGroup[], opts: EvaluateGuardedOptions): GuardedEvaluation {
  const profiles = [...(opts.profiles ?? REWARD_PROFILES)];
  const seed = opts.seed ?? 1;
  const log = opts.log ?? (() => {});
  const base = { palette: opts.palette, limits: opts.limits, withReference: opts.withReference ?? false };
  // One context and one judge per group and profile.
  const judges = groups.map((g) => {
    const context = groupContext(g.query, g.profile, base.withReference ? g.reference : undefined);
    return Object.fromEntries(REWARD_PROFILES.map((p) => [p, scorer(g, { ...base, profile: p }, context)])) as Record<RewardProfile, ReturnType<typeof scorer>>;
  });

  // (a) Honest plans in both profiles.
  const honestScores = groups.map((g, gi) =>
    g.plans.map((h) => {
      const paper = judges[gi]!.paper(h.plan);
      const guarded = judges[gi]!.guarded(h.plan);
      return { paper: paper.score, guarded: guarded.score, gated: paper.evaluation.gate.failed, signals: paper.signals };
    }),
  );
  const all = honestScores.flat();
  const ok = all.filter((h) => !h.gated);
  const signals = Object.fromEntries(GAMING_SIGNAL_CODES.map((c) => [c, share(ok.filter((h) => h.signals.includes(c)).length, ok.length)])) as Record<
    GamingSignalCode,
    Share
  >;
  const honest: HonestFigures = {
    groups: groups.length,
    plans: all.length,
    gated: all.length - ok.length,
    flagged: { any: share(ok.filter((h) => h.signals.length > 0).length, ok.length), signals },
    guarded_at_least_95pct_of_paper: share(ok.filter((h) => h.guarded >= 0.95 * h.paper - EPS).length, ok.length),
    spearman_paper_guarded: spearman(
      ok.map((h) => h.paper),
      ok.map((h) => h.guarded),
    ),
    mean_score: { paper: mean(ok.map((h) => h.paper)), guarded: mean(ok.map((h) => h.guarded)) },
  };
  // Each group's lowest and best honest score per profile (ungated plans; null when none).
  const marks = honestScores.map((hs) => {
    const good = hs.filter((h) => !h.gated);
    if (good.length === 0) return null;
    return Object.fromEntries(
      REWARD_PROFILES.map((p) => [p, { lowest: Math.min(...good.map((h) => h[p])), best: Math.max(...good.map((h) => h[p])) }]),
    ) as Record<RewardProfile, { lowest: number; best: number }>;
  });
  log(`honest: ${all.length} plans in ${groups.length} groups`);

  // (b) Adversary families.
  const families: GuardedEvaluation['families'] = {};
  for (const [fi, name] of (opts.families ?? FAMILY_NAMES).entries()) {
    const fam: FamilyFigures = { variants: 0, groups: 0, gated: 0, profiles: {} };
    const acc = Object.fromEntries(profiles.map((p) => [p, { lowest: 0, best: 0, scores: [] as number[], worst: null as Worst | null }]));
    for (const [gi, g] of groups.entries()) {
      const mark = marks[gi];
      if (!mark) continue;
      const rand = mulberry32(seed * 1_000_003 + fi * 7919 + gi);
      const variants = adversaryFamilies[name](
        g,
        groups.filter((o) => o !== g),
        rand,
      );
      if (variants.length === 0) continue;
      fam.groups++;
      for (const plan of variants) {
        fam.variants++;
        let gated = false;
        for (const p of profiles) {
          const s = judges[gi]![p](plan);
          gated ||= s.evaluation.gate.failed;
          const a = acc[p]!;
          a.scores.push(s.score);
          if (s.score >= mark[p].lowest - EPS) a.lowest++;
          if (s.score >= mark[p].best - EPS) a.best++;
          const margin = s.score - mark[p].lowest;
          if (!a.worst || margin > a.worst.margin)
            a.worst = { group: g.id, score: s.score, lowest_honest: mark[p].lowest, best_honest: mark[p].best, margin, signals: s.signals, plan };
        }
        if (gated) fam.gated++;
      }
    }
    for (const p of profiles) {
      const a = acc[p]!;
      fam.profiles[p] = {
        at_or_above_lowest_honest: share(a.lowest, fam.variants),
        at_or_above_best_honest: share(a.best, fam.variants),
        mean_score: mean(a.scores),
        worst: a.worst,
      };
    }
    families[name] = fam;
    log(
      `family ${name}: ${fam.variants} variants, ${profiles.map((p) => `${p} ${fam.profiles[p]!.at_or_above_lowest_honest.count}`).join(', ')} at or above the lowest honest plan`,
    );
  }

  // (c) The fluent optimizer.
  let fluent: GuardedEvaluation['fluent'] = null;
  if (opts.fluent !== false) {
    const budget = opts.fluent?.budget ?? 3000;
    const seeds = [...(opts.fluent?.seeds ?? [1, 2, 3])];
    const picked = spreadGroups(
      groups.map((g, gi) => ({ g, gi })).filter(({ gi }) => marks[gi] !== null),
      opts.fluent?.groups ?? 10,
    );
    fluent = {};
    for (const p of profiles) {
      const runs: FluentRun[] = [];
      let worst: FluentFigures['worst'] = null;
      for (const { g, gi } of picked) {
        for (const s of seeds) {
          const r = fluentSearch(g, { ...base, profile: p, budget, seed: s });
          const run: FluentRun = {
            group: g.id,
            seed: s,
            start: r.start,
            best: r.best.score,
            best_honest: marks[gi]![p].best,
            lowest_honest: marks[gi]![p].lowest,
            signals: r.best.signals,
            evaluations: r.evaluations,
          };
          runs.push(run);
          if (!worst || run.best - run.best_honest > worst.best - worst.best_honest) worst = { ...run, plan: r.best.plan };
        }
      }
      fluent[p] = {
        budget,
        seeds,
        groups: picked.map(({ g }) => g.id),
        runs: runs.length,
        at_or_above_best_honest: share(runs.filter((r) => r.best >= r.best_honest - EPS).length, runs.length),
        at_or_above_lowest_honest: share(runs.filter((r) => r.best >= r.lowest_honest - EPS).length, runs.length),
        max_margin_over_best_honest: runs.length === 0 ? 0 : Math.max(...runs.map((r) => r.best - r.best_honest)),
        per_run: runs,
        worst,
      };
      log(`fluent search (${p}): ${fluent[p]!.at_or_above_best_honest.count} of ${runs.length} runs at or above the best honest plan`);
    }
  }

  // (d) Removal: searches on a bounded set of plans, single edits on every honest plan.
  const removal: GuardedEvaluation['removal'] = {};
  const threshold = (opts.removal !== false && opts.removal?.share) || 0.3;
  for (const p of profiles) {
    const perPlan: RemovalPlan[] = [];
    let worst: RemovalFigures['worst'] = null;
    const budget = (opts.removal !== false && opts.removal?.budget) || 400;
    if (opts.removal !== false) {
      const picked = spreadGroups(
        groups.map((g, gi) => ({ g, gi })).filter(({ gi }) => marks[gi] !== null),
        opts.removal?.groups ?? 20,
      );
      for (const { g, gi } of picked) {
        for (const [k, h] of g.plans.slice(0, opts.removal?.plansPerGroup ?? g.plans.length).entries()) {
          if (honestScores[gi]![k]!.gated) continue;
          const r = removalSearch(g, h.plan, { ...base, profile: p, budget, seed: seed + k });
          const row: RemovalPlan = {
            group: g.id,
            style: h.style,
            original: r.original,
            max_hollowed: maxScoreWithRemoved(r, threshold),
            visited: r.visited.length,
          };
          perPlan.push(row);
          const margin = (row.max_hollowed ?? -1) - row.original;
          if (r.best_hollowed && (!worst || margin > (worst.max_hollowed ?? -1) - worst.original)) worst = { ...row, plan: r.best_hollowed.plan };
        }
      }
    }
    let lowering = 0;
    let raising = 0;
    let edits = 0;
    for (const [gi, g] of groups.entries()) {
      const nouns = materialOf(g).nouns;
      for (const [k, h] of g.plans.entries()) {
        if (honestScores[gi]![k]!.gated) continue;
        const before = honestScores[gi]![k]![p];
        for (const e of singleRemovalEdits(h.plan, nouns)) {
          const after = judges[gi]![p](e.plan).score;
          edits++;
          if (after < before - EPS) lowering++;
          else if (after > before + EPS) raising++;
        }
      }
    }
    const hollowed = perPlan.filter((r) => r.max_hollowed !== null);
    removal[p] = {
      share: threshold,
      budget,
      plans: perPlan.length,
      hollowed_at_or_above_original: share(hollowed.filter((r) => r.max_hollowed! >= r.original - EPS).length, perPlan.length),
      hollowed_above_original: share(hollowed.filter((r) => r.max_hollowed! > r.original + EPS).length, perPlan.length),
      max_margin: hollowed.length === 0 ? 0 : Math.max(...hollowed.map((r) => r.max_hollowed! - r.original)),
      mean_original: mean(perPlan.map((r) => r.original)),
      mean_max_hollowed: mean(hollowed.map((r) => r.max_hollowed!)),
      per_plan: perPlan,
      worst,
      single_edits: { edits, lowering: share(lowering, edits), raising: share(raising, edits), unchanged: share(edits - lowering - raising, edits) },
    };
    log(
      `removal (${p}): ${removal[p]!.hollowed_at_or_above_original.count} of ${perPlan.length} plans keep their score with ${threshold * 100} % of words removed`,
    );
  }

  return { groups: groups.length, profiles, seed, honest, families, fluent, removal };
}
