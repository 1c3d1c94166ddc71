import t from 'tap';
import { extractPlanObject } from '../../src/plan/extract.js';

const plan = { agents: [], steps: [{ id: 'a', note: 'has } and { inside "quotes"' }] };
const json = JSON.stringify(plan);

t.test('bare JSON, with surrounding whitespace', async (t) => {
  const r = extractPlanObject(`  \n${json}\n `);
  t.ok(r.ok);
  if (r.ok) {
    t.equal(r.source, 'bare');
    t.same(r.value, plan);
  }
});

t.test('an object completion is used as is', async (t) => {
  const r = extractPlanObject(plan);
  t.ok(r.ok && r.source === 'object' && r.value === plan);
});

t.test('```json fence with prose around it', async (t) => {
  const r = extractPlanObject(`Sure! Here is the plan:\n\n\`\`\`json\n${JSON.stringify(plan, null, 2)}\n\`\`\`\nLet me know.`);
  t.ok(r.ok);
  if (r.ok) {
    t.equal(r.source, 'fence');
    t.same(r.value, plan);
  }
});

t.test('a json-labelled fence wins over an earlier unlabelled one', async (t) => {
  const r = extractPlanObject(`\`\`\`\n{"draft": true}\n\`\`\`\nFinal:\n\`\`\`json\n${json}\n\`\`\``);
  t.ok(r.ok);
  if (r.ok) t.same(r.value, plan);
});

t.test('object embedded in prose without a fence; braces inside strings do not confuse it', async (t) => {
  const r = extractPlanObject(`The plan {not json} is: ${json} — enjoy.`);
  t.ok(r.ok);
  if (r.ok) {
    t.equal(r.source, 'embedded');
    t.same(r.value, plan);
  }
});

t.test('reasoning blocks are ignored', async (t) => {
  const r = extractPlanObject(`<think>maybe {"agents": "draft"} ...</think>\n${json}`);
  t.ok(r.ok);
  if (r.ok) t.same(r.value, plan);
});

t.test('broken JSON is not repaired', async (t) => {
  for (const text of [json.slice(0, -1), json.replace('"a"', "'a'"), json.replace(']}', '],}'), '{"a": 1,}']) {
    const r = extractPlanObject(text);
    t.notOk(r.ok, text);
  }
});

t.test('non-object JSON and non-JSON completions fail with a reason', async (t) => {
  for (const c of ['[1,2]', '"plan"', 'no json here', '', 42, null, [json]]) {
    const r = extractPlanObject(c);
    t.notOk(r.ok);
    if (!r.ok) t.match(r.reason, /JSON|string/);
  }
});
