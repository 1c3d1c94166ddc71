import { readFileSync } from 'node:fs';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE, EXAMPLE_QUERY } from '../../src/contracts/examples.js';
import type { Plan } from '../../src/contracts/plan.js';
import type { Profile } from '../../src/contracts/profile.js';
import type { CorpusGroup } from '../../src/redteam/evaluation.js';

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

/** The corpus's groups, of one split or all. */
export function corpusGroups(split?: CorpusGroup['split']): CorpusGroup[] {
  const { groups } = JSON.parse(readFileSync(new URL('../fixtures/plans/honest-corpus.json', import.meta.url), 'utf8')) as { groups: CorpusGroup[] };
  return split === undefined ? groups : groups.filter((g) => g.split === split);
}
