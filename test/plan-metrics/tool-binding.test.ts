import t from 'tap';
import { EXAMPLE_PLAN } from '../../src/contracts/examples.js';
import type { Plan } from '../../src/contracts/plan.js';
import { DEFAULT_RESOLVED, resolvePalette } from '../../src/plan/palette.js';
import { toolBindingQuality, toolText } from '../../src/plan-metrics/tool-binding.js';
import { useLite } from '../support/encoder.js';

// Fixed vectors, so every cosine is known: cos(tutor, learn) = 0.6, cos(docs, tutor) = 0,
// cos(docs, look up) = 0.8, cos(file writer, tutor) = 1/√2, cos(file writer, write) = −1/√2.
const VECTORS: Record<string, number[]> = {
  Tutor: [1, 0, 0],
  Learn: [0.6, 0.8, 0],
  'Searches docs': [0, 0, 1],
  'Look it up': [0, 0.6, 0.8],
  'File Writer Tool': [1, 1, 0],
  'Write the file': [-1, 0, 0],
};
const calls: string[][] = [];
const fakeEmbed = async (texts: readonly string[]) => {
  calls.push([...texts]);
  return texts.map((x) => {
    if (!(x in VECTORS)) throw new Error(`unexpected text ${x}`);
    return Float32Array.from(VECTORS[x]!);
  });
};

const plan: Plan = {
  agents: [{ id: 'a', role: 'Tutor', tools: ['DocsTool', 'FileWriterTool'] }],
  subtasks: [{ id: 's', name: 'Learn' }],
  steps: [
    { id: 'st1', subtask: 's', agent: 'a', instruction: 'Look it up', tool: 'DocsTool', depends_on: [] },
    { id: 'st2', subtask: 'ghost', agent: 'a', instruction: 'Write the file', tool: 'FileWriterTool', depends_on: ['st1'] },
    { id: 'st3', subtask: 's', agent: 'a', instruction: 'Chat', tool: null, depends_on: ['st2'] },
    { id: 'st4', subtask: 's', agent: 'a', instruction: 'Chat', depends_on: ['st3'] },
  ],
  execution_order: ['st1', 'st2', 'st3', 'st4'],
};
const palette = resolvePalette([{ name: 'DocsTool', description: 'Searches docs' }, 'FileWriterTool']);

t.test('TBQ with known cosines: per-binding checks, quality × step coverage', async (t) => {
  const r = await toolBindingQuality(plan, palette, fakeEmbed);
  t.same(calls, [['Tutor', 'Learn', 'Searches docs', 'Look it up', 'File Writer Tool', 'Write the file']], 'each distinct text embedded once, in one call');
  const [b1, b2] = r.bindings;
  t.ok(Math.abs(b1!.cosines.role_subtask! - 0.6) < 1e-6 && Math.abs(b1!.cosines.tool_instruction! - 0.8) < 1e-6);
  t.equal(b1!.cosines.tool_role, 0);
  t.same(b1!.pass, { role_subtask: true, tool_role: false, tool_instruction: true });
  t.equal(b1!.share, 2 / 3);
  t.equal(b2!.cosines.role_subtask, null, 'unknown subtask: no cosine');
  t.ok(Math.abs(b2!.cosines.tool_role! - Math.SQRT1_2) < 1e-6 && Math.abs(b2!.cosines.tool_instruction! + Math.SQRT1_2) < 1e-6);
  t.same(b2!.pass, { role_subtask: false, tool_role: true, tool_instruction: false });
  t.equal(b2!.share, 1 / 3);
  t.equal(r.quality, 0.5);
  t.equal(r.coverage, 0.5);
  t.equal(r.value, 0.25);
  t.match(r, { steps: 4, bound_steps: 2, delta: 0.1 });

  // δ is strict and configurable: at δ = 0.75, cos 0.8 and 1/√2 ≈ 0.707 split.
  const strict = await toolBindingQuality(plan, palette, fakeEmbed, 0.75);
  t.same(
    strict.bindings.map((b) => b.pass),
    [
      { role_subtask: false, tool_role: false, tool_instruction: true },
      { role_subtask: false, tool_role: false, tool_instruction: false },
    ],
  );
});

t.test('no tool anywhere: TBQ 0 and no embedding call', async (t) => {
  calls.length = 0;
  const none = { ...plan, steps: plan.steps.map((s) => ({ ...s, tool: null })) };
  t.match(await toolBindingQuality(none, palette, fakeEmbed), { value: 0, quality: 0, coverage: 0, bindings: [] });
  t.same(calls, []);
});

t.test('tool text: the palette description, else the name split into words', async (t) => {
  t.equal(toolText(DEFAULT_RESOLVED, 'FileReadTool'), 'Reads a file from the learner workspace.');
  t.equal(toolText(DEFAULT_RESOLVED, 'MyCustomTool'), 'My Custom Tool');
  t.equal(toolText(DEFAULT_RESOLVED, 'web_search-tool'), 'web search tool');
});

t.test('with the USE-lite encoder: the example plan binds well, a nonsense instruction does not', async (t) => {
  const encoder = await useLite();
  const embed = (texts: readonly string[]) => encoder.embed(texts);
  const r = await toolBindingQuality(EXAMPLE_PLAN, DEFAULT_RESOLVED, embed);
  t.equal(r.bound_steps, 5);
  t.equal(r.coverage, 0.5);
  t.ok(r.quality >= 0.8, `quality ${r.quality}`);
  for (const b of r.bindings) for (const c of Object.values(b.cosines)) t.ok(c !== null && c > -1 && c < 1);

  const odd = {
    ...EXAMPLE_PLAN,
    steps: EXAMPLE_PLAN.steps.map((s) => (s.id === 'st8' ? { ...s, instruction: 'Bake a chocolate cake for the birthday party.' } : s)),
  };
  const before = r.bindings.find((b) => b.step === 'st8')!.cosines.tool_instruction!;
  const after = (await toolBindingQuality(odd, DEFAULT_RESOLVED, embed)).bindings.find((b) => b.step === 'st8')!.cosines.tool_instruction!;
  t.ok(after < before - 0.2, `cos(FileReadTool, instruction): ${before.toFixed(3)} → ${after.toFixed(3)}`);
});
