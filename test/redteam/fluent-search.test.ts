// The fluent search and the removal search (src/redteam/fluent-search.ts), on small budgets: fluent edits keep a
// plan valid and every step a sentence; the search never loses its best plan and reads no honest plan; removal
// edits enumerate each step once per kind.
import t from 'tap';
import { mulberry32 } from '../../src/common/rng.js';
import type { Plan } from '../../src/contracts/plan.js';
import { DEFAULT_RESOLVED } from '../../src/plan/palette.js';
import { DEFAULT_PLAN_LIMITS } from '../../src/plan/parse.js';
import { isFunctionWord } from '../../src/rewards/gaming/text.js';
import { groupsFromRecords } from '../../src/redteam/evaluation.js';
import { fluentHollowPlan, type HonestGroup, materialOf } from '../../src/redteam/families.js';
import {
  FLUENT_OPERATOR_NAMES,
  FLUENT_OPERATORS,
  fluentSearch,
  maxScoreWithRemoved,
  removalSearch,
  scorer,
  singleRemovalEdits,
  topoOrder,
} from '../../src/redteam/fluent-search.js';
import { evaluatePlan, groupContext } from '../../src/scoring/evaluate-plan.js';
import { realPlans } from '../support/real-plans.js';

const groups = groupsFromRecords(realPlans());
const base = { palette: DEFAULT_RESOLVED, limits: DEFAULT_PLAN_LIMITS };

/** Why a step instruction is not a sentence: no capital first, no final mark, or no function word. */
function notASentence(text: string): string | null {
  if (!/^[A-Z]/.test(text)) return 'does not start with a capital letter';
  if (!/[.?!]$/.test(text)) return 'does not end with . ? or !';
  if (!(text.toLowerCase().match(/[a-z]+/g) ?? []).some(isFunctionWord)) return 'has no function word';
  return null;
}

/** Why a plan is not valid: gated, a violation (warnings included), a cycle. */
function invalid(plan: Plan, g: HonestGroup): string[] {
  const out: string[] = [];
  const e = evaluatePlan(plan, groupContext(g.query, g.profile), DEFAULT_RESOLVED, DEFAULT_PLAN_LIMITS, {
    strict: false,
    lambda_hard: 1,
    reward_profile: 'guarded',
  });
  if (e.gate.failed) out.push(`gated: ${e.gate.reasons.join(', ')}`);
  for (const v of e.violations) out.push(`${v.code}: ${v.message}`);
  if (topoOrder(plan) === null) out.push('a dependency cycle');
  return out;
}

/** invalid(), and the steps that are not sentences. */
function problems(plan: Plan, g: HonestGroup): string[] {
  const out = invalid(plan, g);
  for (const s of plan.steps) {
    const why = notASentence(s.instruction);
    if (why) out.push(`${s.id} ${why}: "${s.instruction}"`);
  }
  return out;
}

t.test('fluent edits keep every plan valid and every step a sentence', async (t) => {
  const used = new Map<string, number>();
  for (const [gi, g] of groups.entries()) {
    const m = materialOf(g);
    const rand = mulberry32(500 + gi);
    let plan = fluentHollowPlan(m, rand);
    t.same(problems(plan, g), [], `${g.id}: the start`);
    for (let k = 0; k < 150; k++) {
      const name = FLUENT_OPERATOR_NAMES[k % FLUENT_OPERATOR_NAMES.length]!;
      const next = FLUENT_OPERATORS[name](plan, m, rand, DEFAULT_RESOLVED);
      if (next === null) continue;
      used.set(name, (used.get(name) ?? 0) + 1);
      const found = problems(next, g);
      if (found.length > 0) {
        t.fail(`${g.id}, after ${name}: ${found.join('; ')}`);
        break;
      }
      // Keep the plan between 3 and 15 steps so that every operator gets its turn.
      if (next.steps.length >= 3 && next.steps.length <= 15) plan = next;
    }
  }
  for (const name of FLUENT_OPERATOR_NAMES) t.ok((used.get(name) ?? 0) > 0, `${name} applied ${used.get(name) ?? 0} times`);
});

t.test('the fluent search never loses its best score, and reads no honest plan', async (t) => {
  for (const g of groups.slice(0, 3)) {
    for (const profile of ['paper', 'guarded'] as const) {
      const r = fluentSearch(g, { ...base, profile, budget: 150, seed: 2 });
      t.equal(r.evaluations, 150);
      t.ok(r.best.score >= r.start, `${g.id} ${profile}: ${r.start} → ${r.best.score}`);
      for (let i = 1; i < r.trace.length; i++) t.ok(r.trace[i]!.best > r.trace[i - 1]!.best, `${g.id}: trace rises`);
      t.equal(r.trace[r.trace.length - 1]!.best, r.best.score, 'the trace ends at the best score');
      t.equal(scorer(g, { ...base, profile })(r.best.plan).score, r.best.score, 'the best plan scores what it reports');
      t.same(problems(r.best.plan, g), [], `${g.id}: the best plan is valid and fluent`);
      // Material only: the same search without the honest plans finds the same.
      t.same(fluentSearch({ ...g, plans: [] }, { ...base, profile, budget: 150, seed: 2 }), r, `${g.id}: independent of the honest plans`);
    }
  }
  const a = fluentSearch(groups[1]!, { ...base, profile: 'paper', budget: 60, seed: 4 });
  t.same(fluentSearch(groups[1]!, { ...base, profile: 'paper', budget: 60, seed: 4 }), a, 'a seed fixes the search');
});

t.test('single removal edits: one deletion and one hollowing per step', async (t) => {
  for (const g of groups) {
    const plan = g.plans[0]!.plan;
    const edits = singleRemovalEdits(plan, materialOf(g).nouns);
    const deletes = edits.filter((e) => e.kind === 'delete_step');
    const hollows = edits.filter((e) => e.kind === 'hollow_step');
    t.equal(edits.length, 2 * plan.steps.length, `${g.id}: two edits per step`);
    t.same(
      deletes.map((e) => e.step),
      plan.steps.map((s) => s.id),
      `${g.id}: one deletion per step`,
    );
    t.same(
      hollows.map((e) => e.step),
      plan.steps.map((s) => s.id),
      `${g.id}: one hollowing per step`,
    );
    for (const e of deletes) {
      t.same(
        e.plan.steps.map((s) => s.id),
        plan.steps.filter((s) => s.id !== e.step).map((s) => s.id),
      );
      t.same(invalid(e.plan, g), [], `${g.id}: deleting ${e.step} keeps the plan valid`);
    }
    for (const e of hollows) {
      const changed = e.plan.steps.filter((s, i) => JSON.stringify(s) !== JSON.stringify(plan.steps[i]));
      t.equal(changed.length, 1, `${g.id}: hollowing ${e.step} changes one step`);
      t.equal(changed[0]!.id, e.step);
      t.equal(notASentence(changed[0]!.instruction), null, `"${changed[0]!.instruction}" is a sentence`);
      t.equal(changed[0]!.human_input, plan.steps.find((s) => s.id === e.step)!.human_input, 'human input kept');
    }
  }
});

t.test('removal search: shares of words removed, scores, the budget', async (t) => {
  const g = groups[0]!;
  for (const profile of ['paper', 'guarded'] as const) {
    const r = removalSearch(g, g.plans[0]!.plan, { ...base, profile, budget: 120, seed: 1 });
    t.ok(r.evaluations <= 120 && r.visited.length === r.evaluations - 1, `${r.visited.length} visited`);
    t.ok(
      r.visited.every((v) => v.removed >= 0 && v.removed <= 1 && v.score >= 0 && v.score <= 1),
      'shares and scores in [0, 1]',
    );
    t.ok(
      r.visited.some((v) => v.removed >= 0.3),
      'walks reach 30 % removed',
    );
    t.equal(r.original, scorer(g, { ...base, profile })(g.plans[0]!.plan).score);
    t.equal(maxScoreWithRemoved(r, 0.3), r.best_hollowed?.score ?? null);
    t.ok(r.best_hollowed!.removed >= 0.3);
    t.equal(maxScoreWithRemoved({ visited: [{ removed: 0.1, score: 1 }] }, 0.3), null);
  }
});
