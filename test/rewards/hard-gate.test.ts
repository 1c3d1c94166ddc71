import t from 'tap';
import { violation } from '../../src/plan/violations.js';
import { hardGate } from '../../src/rewards/hard-gate.js';

const v = (code: Parameters<typeof violation>[0]) => violation(code, '$', 'x');

t.test('schema, cycle and tool violations close the gate with −λ_hard', async (t) => {
  for (const [code, cls] of [
    ['parse_error', 'schema'],
    ['schema_invalid', 'schema'],
    ['unknown_agent', 'schema'],
    ['duplicate_id', 'schema'],
    ['plan_too_large', 'schema'],
    ['cycle', 'cycle'],
    ['tool_not_in_palette', 'tool'],
    ['tool_not_in_agent_tools', 'tool'],
  ] as const) {
    t.same(hardGate([v(code)], 10, false), { failed: true, reasons: [code], classes: [cls], penalty: -10 }, code);
  }
});

t.test('other violations pass the gate unless strict', async (t) => {
  const soft = [v('unknown_dependency'), v('missing_from_order'), v('unbounded_loop'), v('unknown_dependency')];
  t.same(hardGate(soft, 10, false), { failed: false, reasons: [], classes: [], penalty: 0 });
  t.same(hardGate(soft, 10, true), { failed: true, reasons: ['unknown_dependency', 'missing_from_order', 'unbounded_loop'], classes: [], penalty: -10 });
});

t.test('λ_hard is configurable, including 0', async (t) => {
  t.equal(hardGate([v('cycle')], 3.5, false).penalty, -3.5);
  t.same(hardGate([v('cycle')], 0, false), { failed: true, reasons: ['cycle'], classes: ['cycle'], penalty: -0 });
});
