// bench/fresh-plans.ts: the fresh 64×8 batches the guarded-latency bench scores. Each round's body is the
// same every time; no sentence repeats within a round, between rounds or from its template; every plan parses
// and passes the hard gate as its template does; and the plans are about the templates' size.
import t from 'tap';
import { freshBatch, type FreshBody, sentencesOf, templateBatch } from '../../bench/fresh-plans.js';
import type { Plan } from '../../src/contracts/plan.js';
import { DEFAULT_RESOLVED } from '../../src/plan/palette.js';
import { DEFAULT_PLAN_LIMITS } from '../../src/plan/parse.js';
import { evaluatePlan, groupContext } from '../../src/scoring/evaluate-plan.js';
import { DEFAULT_SCORING } from '../../src/scoring/score-groups.js';

const ROUNDS = [0, 1, 2, 17];
const batches = new Map(ROUNDS.map((r) => [r, freshBatch(r)]));
const plansOf = (b: FreshBody) => b.groups.flatMap((g) => g.completions.map((c) => JSON.parse(c) as Plan));

t.test('a round gives the same body every time, and a request body of 64 groups × 8 JSON plans', async (t) => {
  const b = batches.get(1)!;
  t.equal(JSON.stringify(freshBatch(1)), JSON.stringify(b));
  t.not(JSON.stringify(freshBatch(2)), JSON.stringify(b));
  t.equal(b.run_id, null);
  t.equal(b.groups.length, 64);
  for (const g of b.groups) {
    t.equal(g.completions.length, 8);
    t.ok(g.completions.every((c) => typeof c === 'string'));
  }
  const small = freshBatch(5, 3, 2);
  t.equal(small.groups.length, 3);
  t.ok(small.groups.every((g) => g.completions.length === 2));
});

t.test('no sentence repeats within a round, between rounds, or from its template', async (t) => {
  const seen = new Map<string, number>();
  for (const [r, b] of batches) {
    const said = sentencesOf(b);
    t.equal(new Set(said).size, said.length, `round ${r}: every sentence its own`);
    const templates = new Set(sentencesOf(templateBatch(r)));
    t.equal(said.filter((s) => templates.has(s)).length, 0, `round ${r}: no template sentence left as it was`);
    const again = said.filter((s) => seen.has(s));
    t.same(again, [], `round ${r}: no sentence of an earlier round`);
    for (const s of said) seen.set(s, r);
  }
  // The groups' queries are reworded too.
  for (const [r, b] of batches) {
    const same = b.groups.filter((g, i) => g.query === templateBatch(r).groups[i]!.query).length;
    t.ok(same <= b.groups.length / 10, `round ${r}: ${same} queries as they were`);
  }
});

t.test('every plan parses and passes the hard gate, as its template does', async (t) => {
  const gate = { strict: false, lambda_hard: DEFAULT_SCORING.lambda_hard, reward_profile: 'guarded' as const };
  for (const r of [0, 17]) {
    const b = batches.get(r)!;
    let failed = 0;
    for (const g of b.groups) {
      const context = groupContext(g.query, g.profile);
      for (const c of g.completions) {
        const e = evaluatePlan(c, context, DEFAULT_RESOLVED, DEFAULT_PLAN_LIMITS, gate);
        if (!e.parsed || e.gate.failed || e.violations.length > 0) failed++;
      }
    }
    t.equal(failed, 0, `round ${r}: every plan parsed, gate open, no violation`);
  }
});

t.test('the same structure as the templates, and about their size', async (t) => {
  const words = (p: Plan) => p.steps.reduce((n, s) => n + s.instruction.split(/\s+/).length + (s.expected_output?.split(/\s+/).length ?? 0), 0);
  for (const [r, b] of batches) {
    const fresh = plansOf(b);
    const tpl = plansOf(templateBatch(r));
    const structure = (p: Plan) =>
      JSON.stringify({
        steps: p.steps.map((s) => [s.id, s.agent, s.subtask, s.tool, s.depends_on, s.human_input]),
        order: p.execution_order,
        agents: p.agents.map((a) => [a.id, a.role, a.tools]),
      });
    t.ok(
      fresh.every((p, i) => structure(p) === structure(tpl[i]!)),
      `round ${r}: agents, tools, steps and dependencies as the templates'`,
    );
    const ratio = (f: (p: Plan) => number) => fresh.reduce((n, p) => n + f(p), 0) / tpl.reduce((n, p) => n + f(p), 0);
    const w = ratio(words);
    const chars = ratio((p) => JSON.stringify(p).length);
    t.ok(w >= 0.95 && w <= 1.2, `round ${r}: step words ${w.toFixed(3)}× the templates'`);
    t.ok(chars >= 0.95 && chars <= 1.2, `round ${r}: JSON ${chars.toFixed(3)}× the templates'`);
  }
});
