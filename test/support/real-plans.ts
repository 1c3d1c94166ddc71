import { readFileSync } from 'node:fs';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE, EXAMPLE_QUERY } from '../../src/contracts/examples.js';
import type { Plan } from '../../src/contracts/plan.js';
import type { Profile } from '../../src/contracts/profile.js';

export interface RealPlan {
  id: string;
  query: string;
  profile: Profile;
  plan: Plan;
}

/** The calibration set: the team's real plans (test/fixtures/plans/) and the service's example plan. */
export function realPlans(): RealPlan[] {
  const corpus = JSON.parse(readFileSync(new URL('../fixtures/plans/real-plans.json', import.meta.url), 'utf8')) as RealPlan[];
  return [...corpus, { id: 'example', query: EXAMPLE_QUERY, profile: EXAMPLE_PROFILE, plan: EXAMPLE_PLAN }];
}

/** Spearman's ρ: Pearson's correlation of the ranks, ties given their mean rank. */
export function spearman(xs: readonly number[], ys: readonly number[]): number {
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
  return sxy / Math.sqrt(sxx * syy);
}

/** A group of the honest-plan corpus (test/fixtures/plans/honest-corpus.json; docs/rewards.md §11.1). */
export interface CorpusGroup {
  id: string;
  source: 'coding-tutor' | 'mathdial';
  split: 'calibration' | 'evaluation';
  query: string;
  profile: Profile;
  reference: string[];
  plans: { style: string; plan: Plan }[];
}

/** The corpus's groups, of one split or all. */
export function corpusGroups(split?: CorpusGroup['split']): CorpusGroup[] {
  const { groups } = JSON.parse(readFileSync(new URL('../fixtures/plans/honest-corpus.json', import.meta.url), 'utf8')) as { groups: CorpusGroup[] };
  return split === undefined ? groups : groups.filter((g) => g.split === split);
}
