import { mulberry32 } from '../common/rng.js';
import type { GamingSignalCode, RewardProfile } from '../contracts/gaming.js';
import type { Plan } from '../contracts/plan.js';
import type { Profile } from '../contracts/profile.js';
import { absoluteScore, INITIAL_WEIGHTS, type AxisVector } from '../grpo/compose.js';
import type { ResolvedPalette } from '../plan/palette.js';
import type { PlanLimits } from '../plan/parse.js';
import { evaluatePlan, groupContext, type PlanEvaluation } from '../scoring/evaluate-plan.js';
import { DEFAULT_SCORING } from '../scoring/score-groups.js';
import { OPERATOR_NAMES, OPERATORS, profileBits, type Material, type OperatorName } from './operators.js';

/** Real plans of one query and profile: where the search starts, and the mark an exploit must beat. */
export interface RedTeamGroup {
  id: string;
  query: string;
  profile: Profile;
  /** What a good answer says (docs/rewards.md §11j): the guarded profile then credits covering it. */
  reference?: string | readonly string[];
  plans: Plan[];
}

export interface RedTeamOptions {
  profile: RewardProfile;
  /** Plans evaluated per group. */
  budget: number;
  seed: number;
  palette: ResolvedPalette;
  limits: PlanLimits;
}

interface Found {
  score: number;
  raw: AxisVector;
  /** The guarded profile's score of the same plan, whichever profile the search maximized. */
  guarded_score: number;
  signals: GamingSignalCode[];
  /** The real plan it started from, and the edits that led to it. */
  from: number;
  edits: OperatorName[];
  plan: Plan;
}

interface GroupReport {
  group: string;
  best_real: number;
  best_found: number;
  /** best_found − best_real: above 0, the search found a plan the reward pays more than every real plan. */
  margin: number;
  /** The best plan found when it beats every real plan. */
  exploit: Found | null;
  evaluations: number;
}

export interface RedTeamReport {
  profile: RewardProfile;
  budget: number;
  seed: number;
  /** The largest margin over the groups. */
  margin: number;
  groups: GroupReport[];
}

const MAX_EDITS_PER_MOVE = 3;

/** The absolute score a plan is ranked by here: 0 when gated, else the initial-weight sum of its soft rewards. */
const scoreOf = (e: PlanEvaluation) => absoluteScore(e.raw, e.gate.failed, INITIAL_WEIGHTS);

/**
 * A seeded hill-climb from each real plan of each group: every move applies one to three edits a policy could
 * learn (operators.ts) and is kept when the reward does not drop. Reports, per group, the best plan found
 * against the best real plan.
 */
export function redTeam(groups: readonly RedTeamGroup[], o: RedTeamOptions): RedTeamReport {
  const reports = groups.map((g, gi) => searchGroup(g, o, mulberry32(o.seed * 7919 + gi)));
  return { profile: o.profile, budget: o.budget, seed: o.seed, margin: Math.max(...reports.map((r) => r.margin)), groups: reports };
}

function searchGroup(g: RedTeamGroup, o: RedTeamOptions, rand: () => number): GroupReport {
  const context = groupContext(g.query, g.profile, g.reference);
  const material: Material = { query: g.query, profileBits: profileBits(g.profile) };
  const judge = (plan: Plan) =>
    evaluatePlan(plan, context, o.palette, o.limits, { strict: false, lambda_hard: DEFAULT_SCORING.lambda_hard, reward_profile: o.profile });
  // The guarded score of a plan the search keeps: its own score under guarded, else a second judgement.
  const guardedScore = (plan: Plan, e: PlanEvaluation) =>
    o.profile === 'guarded'
      ? scoreOf(e)
      : scoreOf(evaluatePlan(plan, context, o.palette, o.limits, { strict: false, lambda_hard: DEFAULT_SCORING.lambda_hard, reward_profile: 'guarded' }));
  const found = (plan: Plan, e: PlanEvaluation, from: number, edits: OperatorName[]): Omit<Found, 'guarded_score'> => ({
    score: scoreOf(e),
    raw: e.raw,
    signals: e.gaming_flags,
    from,
    edits,
    plan,
  });
  const climbers = g.plans.map((plan, i) => found(plan, judge(plan), i, []));
  const bestReal = Math.max(...climbers.map((c) => c.score));
  let best = climbers.reduce((a, b) => (b.score > a.score ? b : a));
  let evaluations = climbers.length;
  for (let k = 0; evaluations < o.budget; k++) {
    const c = climbers[k % climbers.length]!;
    let plan: Plan | null = c.plan;
    const edits: OperatorName[] = [];
    const moves = 1 + Math.floor(rand() * MAX_EDITS_PER_MOVE);
    for (let m = 0; m < moves && plan; m++) {
      const name = OPERATOR_NAMES[Math.floor(rand() * OPERATOR_NAMES.length)]!;
      plan = OPERATORS[name](plan, material, rand);
      edits.push(name);
    }
    if (!plan) continue;
    evaluations++;
    const next = found(plan, judge(plan), c.from, [...c.edits, ...edits]);
    if (next.score >= c.score) climbers[k % climbers.length] = next;
    if (next.score > best.score) best = next;
  }
  const margin = best.score - bestReal;
  const exploit = margin > 0 ? { ...best, guarded_score: guardedScore(best.plan, judge(best.plan)) } : null;
  return { group: g.id, best_real: bestReal, best_found: best.score, margin, exploit, evaluations };
}

/** A record of a red-team input file: a real plan with the query and profile it answers. */
export interface RealPlanRecord {
  id?: string;
  query: string;
  profile: Profile;
  reference?: string | string[];
  plan: Plan;
}

/** Records grouped by query and profile, in first-seen order: each group is one rollout group's real plans (and its first record's reference). */
export function groupsOf(records: readonly RealPlanRecord[]): RedTeamGroup[] {
  const groups = new Map<string, RedTeamGroup>();
  for (const [i, r] of records.entries()) {
    const key = JSON.stringify([r.query, r.profile]);
    const g = groups.get(key);
    if (g) g.plans.push(r.plan);
    else
      groups.set(key, {
        id: r.id ?? `group-${i}`,
        query: r.query,
        profile: r.profile,
        ...(r.reference === undefined ? {} : { reference: r.reference }),
        plans: [r.plan],
      });
  }
  return [...groups.values()];
}
