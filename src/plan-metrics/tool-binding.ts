import { BINDING_CHECKS, type ToolBindingQuality } from '../contracts/evaluate-plan.js';
import type { Agent, Plan } from '../contracts/plan.js';
import type { ResolvedPalette } from '../plan/palette.js';
import { cosine } from '../text/similarity.js';

/** Any sentence encoder: one vector per text, in order (SentenceEncoder.embed fits). */
export type EmbedFn = (texts: readonly string[]) => Promise<Float32Array[]>;

export const DEFAULT_DELTA_TBQ = 0.1;

type ToolBinding = ToolBindingQuality['bindings'][number];

const agentText = (a: Agent) => [a.role, a.goal].filter((t) => t?.trim()).join('. ');

// A tool without a description is embedded by its name split into words ("CodeDocsSearchTool" →
// "Code Docs Search Tool"): the encoder's vocabulary knows the words, not the CamelCase token.
export const toolText = (palette: ResolvedPalette, name: string): string =>
  palette.tools.get(name)?.description?.trim() || name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ');

// PersonalPlan A.4, TBQ: for each step with a tool, three checks with the sentence encoder,
//   cos(agent, subtask) > δ,  cos(tool, agent) > δ,  cos(tool, instruction) > δ,   δ = 0.10;
//   TBQ = mean over bindings of (checks passed / 3) · (steps with a tool / steps).
// Choice: coverage is the share of *steps* with a tool, not of palette tools used. It is a property of
// the plan alone (a request may send a palette of hundreds of tools, most irrelevant to a query), and a
// tool forced onto a step where it does not fit lowers the quality term, which keeps it from being gamed.
export async function toolBindingQuality(plan: Plan, palette: ResolvedPalette, embed: EmbedFn, delta: number = DEFAULT_DELTA_TBQ): Promise<ToolBindingQuality> {
  const agents = new Map<string, Agent>();
  for (const a of plan.agents) if (!agents.has(a.id)) agents.set(a.id, a);
  const subtasks = new Map<string, string>();
  for (const s of plan.subtasks) if (!subtasks.has(s.id)) subtasks.set(s.id, [s.name, s.objective].filter((t) => t?.trim()).join('. '));

  // Each distinct text is embedded once.
  const texts: string[] = [];
  const slot = new Map<string, number>();
  const ref = (text: string | undefined): number | null => {
    if (!text) return null;
    let i = slot.get(text);
    if (i === undefined) {
      i = texts.length;
      slot.set(text, i);
      texts.push(text);
    }
    return i;
  };
  const pending = plan.steps
    .filter((s) => s.tool)
    .map((s) => {
      const agent = agents.get(s.agent);
      return {
        step: s,
        agent: ref(agent ? agentText(agent) : undefined),
        subtask: ref(subtasks.get(s.subtask)),
        tool: ref(toolText(palette, s.tool!)),
        instruction: ref(s.instruction.trim()),
      };
    });
  const vectors = texts.length > 0 ? await embed(texts) : [];
  const cos = (a: number | null, b: number | null) => (a === null || b === null ? null : cosine(vectors[a]!, vectors[b]!));

  const bindings = pending.map((p): ToolBinding => {
    const cosines = {
      role_subtask: cos(p.agent, p.subtask),
      tool_role: cos(p.tool, p.agent),
      tool_instruction: cos(p.tool, p.instruction),
    };
    const pass = {
      role_subtask: cosines.role_subtask !== null && cosines.role_subtask > delta,
      tool_role: cosines.tool_role !== null && cosines.tool_role > delta,
      tool_instruction: cosines.tool_instruction !== null && cosines.tool_instruction > delta,
    };
    const share = BINDING_CHECKS.filter((c) => pass[c]).length / BINDING_CHECKS.length;
    return { step: p.step.id, agent: p.step.agent, tool: p.step.tool!, cosines, pass, share };
  });
  const quality = bindings.length > 0 ? bindings.reduce((s, b) => s + b.share, 0) / bindings.length : 0;
  const coverage = plan.steps.length > 0 ? bindings.length / plan.steps.length : 0;
  return { value: quality * coverage, quality, coverage, steps: plan.steps.length, bound_steps: bindings.length, delta, bindings };
}
