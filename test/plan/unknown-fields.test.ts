import t from 'tap';
import { EXAMPLE_PLAN } from '../../src/contracts/examples.js';
import { parsePlan, DEFAULT_PLAN_LIMITS } from '../../src/plan/parse.js';

const limits = DEFAULT_PLAN_LIMITS;
type Obj = Record<string, unknown>;
const clone = () => structuredClone(EXAMPLE_PLAN) as unknown as Obj & { agents: Obj[]; subtasks: Obj[]; steps: Obj[]; loops: Obj[] };

t.test('a misspelt field is reported with its path and the field it was probably meant to be', async (t) => {
  const plan = clone();
  plan.steps[2]!.depends_om = plan.steps[2]!.depends_on;
  delete plan.steps[2]!.depends_on;
  plan.steps[2]!.depends_on = [];
  const out = parsePlan(plan, limits);
  t.ok(out.ok);
  if (!out.ok) return;
  t.same(out.warnings, [
    { code: 'unknown_field', severity: 'warning', path: '$.steps[2].depends_om', message: 'unknown field `depends_om` ignored (did you mean `depends_on`?)' },
  ]);
  t.notOk('depends_om' in out.plan.steps[2]!, 'the unknown field is not part of the plan');
});

t.test('unknown fields at every level; no hint when nothing known is near; documented variants are not unknown', async (t) => {
  const plan = clone();
  plan.rationale = 'why this plan';
  plan.agents[0]!.persona = 'friendly';
  plan.subtasks[1]!.notes = 'x';
  plan.loops = [{ nodes: ['st1'], max_iterations: 2, exit_conditon: 'done' }];
  plan.steps[0]!.tool_name = plan.steps[0]!.tool;
  delete plan.steps[0]!.tool;
  const out = parsePlan(plan, limits);
  t.ok(out.ok);
  if (!out.ok) return;
  t.same(
    out.warnings.map((w) => [w.path, w.message]),
    [
      ['$.rationale', 'unknown field `rationale` ignored'],
      ['$.agents[0].persona', 'unknown field `persona` ignored'],
      ['$.subtasks[1].notes', 'unknown field `notes` ignored'],
      ['$.loops[0].exit_conditon', 'unknown field `exit_conditon` ignored (did you mean `exit_condition`?)'],
    ],
  );
  t.same(
    out.normalizations.map((n) => n.rule),
    ['field_alias'],
    'tool_name is a known variant, rewritten not reported',
  );
});

t.test('the list is capped at 20 with a count of the rest; a clean plan has none', async (t) => {
  const plan = clone();
  for (const step of plan.steps) {
    step.comment = 'c';
    step.note = 'n';
    step.why = 'w';
  }
  const out = parsePlan(plan, limits);
  if (!out.ok) return t.fail('parses');
  t.equal(out.warnings.length, 21);
  t.same(out.warnings[20], {
    code: 'unknown_field',
    severity: 'warning',
    path: '$',
    message: `${plan.steps.length * 3 - 20} further unknown fields not listed`,
  });
  const clean = parsePlan(clone(), limits);
  t.same(clean.ok && clean.warnings, []);
});
