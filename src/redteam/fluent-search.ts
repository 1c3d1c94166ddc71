import { mulberry32 } from '../common/rng.js';
import type { GamingSignalCode, RewardProfile } from '../contracts/gaming.js';
import type { Plan, Step } from '../contracts/plan.js';
import { absoluteScore, INITIAL_WEIGHTS, type AxisVector } from '../grpo/compose.js';
import type { ResolvedPalette } from '../plan/palette.js';
import type { PlanLimits } from '../plan/parse.js';
import { evaluatePlan, groupContext, type GroupContext, type PlanEvaluation } from '../scoring/evaluate-plan.js';
import { DEFAULT_SCORING } from '../scoring/score-groups.js';
import {
  capitalize,
  CUE_VERBS,
  fitToPalette,
  fluentHollowPlan,
  fluentSentence,
  freshStepId,
  genericSentence,
  type HonestGroup,
  insertAfter,
  type Material,
  materialOf,
  phraseRe,
  pick,
  type Rand,
  ROLES,
  removeStep,
  stepPhase,
  TEMPLATE_PHASES,
  type TemplatePhase,
  TOOLS_BY_PHASE,
  withText,
} from './families.js';

// Two searches for the guarded reward's evaluation.
//
// fluentSearch: a seeded hill-climb like search.ts, but every edit keeps each step a grammatical sentence and
// writes only from the group's query words, its profile tags, the phase cue verbs and a generic vocabulary,
// never from a real plan of the group: the best a fluent writer who teaches nothing can be paid.
//
// removalSearch: from an honest plan, content taken away (steps deleted, sentences deleted, a step's text
// replaced by a generic sentence) while keeping the score as high as it goes: a reward that pays for teaching
// should fall as the teaching goes.

type Group = Pick<HonestGroup, 'query' | 'profile'> & Partial<HonestGroup>;

export interface SearchOptions {
  profile: RewardProfile;
  /** Plans evaluated. */
  budget: number;
  seed: number;
  palette: ResolvedPalette;
  limits: PlanLimits;
  /** Score with the group's reference (docs/rewards.md §11j), as a trainer with an SFT data set can. */
  withReference?: boolean;
}

/** A plan and what the reward profile searched pays it. */
export interface Scored {
  score: number;
  raw: AxisVector;
  signals: GamingSignalCode[];
  plan: Plan;
}

/** The plan's absolute score under `profile` (0 when gated, else the initial-weight sum of its soft rewards), as search.ts ranks plans. */
export function scorer(
  group: Group,
  o: Pick<SearchOptions, 'profile' | 'palette' | 'limits' | 'withReference'>,
  context: GroupContext = groupContext(group.query, group.profile, o.withReference ? group.reference : undefined),
) {
  return (plan: Plan): Scored & { evaluation: PlanEvaluation } => {
    const e = evaluatePlan(plan, context, o.palette, o.limits, { strict: false, lambda_hard: DEFAULT_SCORING.lambda_hard, reward_profile: o.profile });
    return { score: absoluteScore(e.raw, e.gate.failed, INITIAL_WEIGHTS), raw: e.raw, signals: e.gaming_flags, plan, evaluation: e };
  };
}

// ---------------------------------------------------------------------------------------------------------
// Plan surgery that keeps a plan valid

/** The execution order made consistent with the dependencies (Kahn, keeping the current order where it can); null on a cycle. */
export function topoOrder(plan: Plan): string[] | null {
  const ids = plan.execution_order.filter((id) => plan.steps.some((s) => s.id === id));
  for (const s of plan.steps) if (!ids.includes(s.id)) ids.push(s.id);
  const rank = new Map(ids.map((id, i) => [id, i]));
  const deps = new Map(plan.steps.map((s) => [s.id, new Set(s.depends_on.filter((d) => rank.has(d) && d !== s.id))]));
  const out: string[] = [];
  const done = new Set<string>();
  while (out.length < ids.length) {
    const next = ids.find((id) => !done.has(id) && [...deps.get(id)!].every((d) => done.has(d)));
    if (next === undefined) return null;
    out.push(next);
    done.add(next);
  }
  return out;
}

/** A plan with its order rebuilt from its dependencies; null when they form a cycle. */
function reordered(plan: Plan): Plan | null {
  const order = topoOrder(plan);
  return order ? { ...plan, execution_order: order } : null;
}

/** Agents that run no step dropped (their subtasks handed to an agent of their steps, or to none). */
function withoutIdleAgents(plan: Plan): Plan {
  const busy = new Set(plan.steps.map((s) => s.agent));
  if (plan.agents.every((a) => busy.has(a.id)) || busy.size === 0) return plan;
  return {
    ...plan,
    agents: plan.agents.filter((a) => busy.has(a.id)),
    subtasks: plan.subtasks.map((t) => {
      if (t.agent === undefined || busy.has(t.agent)) return t;
      const heir = plan.steps.find((s) => s.subtask === t.id)?.agent;
      const { agent: _, ...rest } = t;
      return heir ? { ...rest, agent: heir } : rest;
    }),
  };
}

/** `tool` given to `agentId` (its tools list grows when it lacks it). */
function withAgentTool(plan: Plan, agentId: string, tool: string | null | undefined): Plan {
  if (!tool) return plan;
  return { ...plan, agents: plan.agents.map((a) => (a.id === agentId && !a.tools.includes(tool) ? { ...a, tools: [...a.tools, tool] } : a)) };
}

const replaceStep = (plan: Plan, id: string, f: (s: Step) => Step): Plan => ({ ...plan, steps: plan.steps.map((s) => (s.id === id ? f(s) : s)) });

/** The phase a fluent sentence of this step should have: activation on a step that asks the learner, else its cues'. */
function phaseFor(step: Step, rand: Rand): TemplatePhase {
  const p = stepPhase(step);
  if (p === 'activation' && !step.human_input) return 'demonstration';
  return p ?? pick(TEMPLATE_PHASES, rand);
}

const toolFor = (phase: TemplatePhase, palette: ResolvedPalette, rand: Rand): string | null => {
  const tools = TOOLS_BY_PHASE[phase].filter((t): t is string => t !== null && palette.tools.has(t));
  return tools.length > 0 ? pick(tools, rand) : null;
};

// ---------------------------------------------------------------------------------------------------------
// Fluent operators: each keeps every instruction a sentence that starts with a capital letter, ends with
// . ? or ! and has grammar; none reads a real plan.

export type FluentOperator = (plan: Plan, m: Material, rand: Rand, palette: ResolvedPalette) => Plan | null;

export const FLUENT_OPERATORS = {
  insert_step(plan, m, rand, palette) {
    if (plan.steps.length === 0) return null;
    const after = pick(plan.steps, rand);
    const agent = rand() < 0.6 ? after.agent : pick(plan.agents, rand).id;
    const subtask = agent === after.agent ? after.subtask : (plan.steps.find((s) => s.agent === agent)?.subtask ?? after.subtask);
    const phase = pick(TEMPLATE_PHASES, rand);
    const tool = rand() < 0.4 ? toolFor(phase, palette, rand) : null;
    const step = {
      id: freshStepId(plan, rand),
      subtask,
      agent,
      instruction: fluentSentence(phase, m, rand, true),
      tool,
      ...(phase === 'activation' && { human_input: true }),
    };
    return withAgentTool(insertAfter(plan, after.id, step), agent, tool);
  },
  delete_step(plan, _m, rand) {
    if (plan.steps.length <= 1) return null;
    return withoutIdleAgents(removeStep(plan, pick(plan.steps, rand).id));
  },
  reword_template(plan, m, rand) {
    if (plan.steps.length === 0) return null;
    const s = pick(plan.steps, rand);
    const phase = rand() < 0.8 ? phaseFor(s, rand) : pick(TEMPLATE_PHASES, rand);
    const text = fluentSentence(phase, m, rand, true);
    return replaceStep(plan, s.id, (x) => ({ ...withText(x, text), ...(phase === 'activation' && { human_input: true }) }));
  },
  swap_cue_verb(plan, _m, rand) {
    const verbs = Object.values(CUE_VERBS).flat();
    const re = new RegExp(`\\b(${verbs.join('|')})\\b`, 'gi');
    const candidates = plan.steps.filter((s) => s.instruction.match(re) !== null);
    if (candidates.length === 0) return null;
    const s = pick(candidates, rand);
    const hits = [...s.instruction.matchAll(re)];
    const hit = pick(hits, rand);
    const word = hit[1]!;
    const list = Object.values(CUE_VERBS).find((l) => l.includes(word.toLowerCase()))!;
    const others = list.filter((v) => v !== word.toLowerCase());
    const swapped = pick(others, rand);
    const replacement = word[0] === word[0]!.toUpperCase() ? capitalize(swapped) : swapped;
    const text = s.instruction.slice(0, hit.index) + replacement + s.instruction.slice(hit.index! + word.length);
    return replaceStep(plan, s.id, (x) => ({ ...x, instruction: text }));
  },
  swap_tag(plan, m, rand) {
    if (m.tags.length < 2) return null;
    const re = phraseRe(m.tags);
    const candidates = plan.steps.filter((s) => s.instruction.match(re) !== null);
    if (candidates.length === 0) return null;
    const s = pick(candidates, rand);
    const hits = [...s.instruction.matchAll(re)];
    const hit = pick(hits, rand);
    const other = pick(
      m.tags.filter((t) => t.toLowerCase() !== hit[0].toLowerCase()),
      rand,
    );
    const text = s.instruction.slice(0, hit.index) + other + s.instruction.slice(hit.index! + hit[0].length);
    return replaceStep(plan, s.id, (x) => ({ ...x, instruction: /^[a-z]/.test(text) ? capitalize(text) : text }));
  },
  add_edge(plan, _m, rand) {
    if (plan.steps.length < 2) return null;
    const [a, b] = [pick(plan.steps, rand), pick(plan.steps, rand)];
    if (a.id === b.id || b.depends_on.includes(a.id)) return null;
    return reordered(replaceStep(plan, b.id, (x) => ({ ...x, depends_on: [...x.depends_on, a.id] })));
  },
  remove_edge(plan, _m, rand) {
    const withEdges = plan.steps.filter((s) => s.depends_on.length > 0);
    if (withEdges.length === 0) return null;
    const s = pick(withEdges, rand);
    const gone = pick(s.depends_on, rand);
    return replaceStep(plan, s.id, (x) => ({ ...x, depends_on: x.depends_on.filter((d) => d !== gone) }));
  },
  chain(plan) {
    const ids = plan.execution_order;
    return { ...plan, steps: plan.steps.map((s) => ({ ...s, depends_on: ids.indexOf(s.id) > 0 ? [ids[ids.indexOf(s.id) - 1]!] : [] })) };
  },
  move_step(plan, _m, rand) {
    if (plan.steps.length === 0) return null;
    const s = pick(plan.steps, rand);
    let out = plan;
    let to: string;
    if (plan.agents.length < 4 && rand() < 0.25) {
      const n = plan.agents.length + 1;
      to = `a${n}`;
      while (out.agents.some((a) => a.id === to)) to = `${to}x`;
      const role = pick(
        ROLES.filter((r) => !plan.agents.some((a) => a.role === r)),
        rand,
      );
      out = { ...out, agents: [...out.agents, { id: to, role: role ?? 'Helper', tools: [] }] };
    } else {
      const others = plan.agents.filter((a) => a.id !== s.agent);
      if (others.length === 0) return null;
      to = pick(others, rand).id;
    }
    out = replaceStep(out, s.id, (x) => ({ ...x, agent: to }));
    return withoutIdleAgents(withAgentTool(out, to, s.tool));
  },
  merge_steps(plan, _m, rand) {
    if (plan.steps.length < 2) return null;
    const order = plan.execution_order;
    const i = Math.floor(rand() * (order.length - 1));
    const a = plan.steps.find((s) => s.id === order[i]);
    const b = plan.steps.find((s) => s.id === order[i + 1]);
    if (!a || !b) return null;
    const tool = a.tool ?? b.tool ?? null;
    const merged: Step = {
      ...withText(a, `${a.instruction.trimEnd()} ${b.instruction.trimStart()}`),
      tool,
      depends_on: [...new Set([...a.depends_on, ...b.depends_on])].filter((d) => d !== a.id && d !== b.id),
      ...((a.human_input || b.human_input) && { human_input: true }),
    };
    const steps = plan.steps
      .filter((s) => s.id !== b.id)
      .map((s) =>
        s.id === a.id ? merged : s.depends_on.includes(b.id) ? { ...s, depends_on: [...new Set(s.depends_on.map((d) => (d === b.id ? a.id : d)))] } : s,
      );
    const loops = plan.loops?.map((l) => ({ ...l, nodes: [...new Set(l.nodes.map((n) => (n === b.id ? a.id : n)))] }));
    const out = reordered({ ...plan, steps, execution_order: order.filter((id) => id !== b.id), ...(loops && { loops }) });
    return out && withoutIdleAgents(withAgentTool(out, a.agent, tool));
  },
  toggle_tool(plan, _m, rand, palette) {
    if (plan.steps.length === 0) return null;
    const s = pick(plan.steps, rand);
    if (s.tool) return replaceStep(plan, s.id, (x) => ({ ...x, tool: null }));
    const tool = toolFor(phaseFor(s, rand), palette, rand) ?? toolFor('demonstration', palette, rand);
    if (!tool) return null;
    return withAgentTool(
      replaceStep(plan, s.id, (x) => ({ ...x, tool })),
      s.agent,
      tool,
    );
  },
} satisfies Record<string, FluentOperator>;

export type FluentOperatorName = keyof typeof FLUENT_OPERATORS;
export const FLUENT_OPERATOR_NAMES = Object.keys(FLUENT_OPERATORS) as FluentOperatorName[];

// ---------------------------------------------------------------------------------------------------------
// The fluent search

interface FluentFound extends Scored {
  edits: FluentOperatorName[];
}

export interface FluentSearchReport {
  profile: RewardProfile;
  seed: number;
  /** The best starting plan's score. */
  start: number;
  best: FluentFound;
  evaluations: number;
  /** Each time the best score rose: after how many evaluations, to what, by which edits. */
  trace: { evaluation: number; best: number; edits: FluentOperatorName[] }[];
}

const CLIMBERS = 4;
const MAX_EDITS_PER_MOVE = 3;

/**
 * A seeded hill-climb over fluent plans for one group: CLIMBERS climbers start from fluent_hollow plans,
 * each move applies one to three fluent edits and is kept when the score does not drop.
 */
export function fluentSearch(group: Group, o: SearchOptions): FluentSearchReport {
  const rand = mulberry32(o.seed * 104729 + 17);
  const m = materialOf(group);
  const judge = scorer(group, o);
  const found = (plan: Plan, edits: FluentOperatorName[]): FluentFound => {
    const { evaluation: _, ...s } = judge(plan);
    return { ...s, edits };
  };
  const climbers: FluentFound[] = [];
  for (let i = 0; i < Math.min(CLIMBERS, o.budget); i++) climbers.push(found(fitToPalette(fluentHollowPlan(m, rand), o.palette), []));
  let best = climbers.reduce((a, b) => (b.score > a.score ? b : a));
  const start = best.score;
  const trace: FluentSearchReport['trace'] = [{ evaluation: climbers.length, best: best.score, edits: [] }];
  let evaluations = climbers.length;
  for (let k = 0; evaluations < o.budget; k++) {
    const c = climbers[k % climbers.length]!;
    let plan: Plan | null = c.plan;
    const edits: FluentOperatorName[] = [];
    const moves = 1 + Math.floor(rand() * MAX_EDITS_PER_MOVE);
    for (let j = 0; j < moves && plan; j++) {
      const name = pick(FLUENT_OPERATOR_NAMES, rand);
      plan = FLUENT_OPERATORS[name](plan, m, rand, o.palette);
      edits.push(name);
    }
    if (!plan) continue;
    evaluations++;
    const next = found(plan, [...c.edits, ...edits]);
    if (next.score >= c.score) climbers[k % climbers.length] = next;
    if (next.score > best.score) {
      best = next;
      trace.push({ evaluation: evaluations, best: best.score, edits: next.edits });
    }
  }
  return { profile: o.profile, seed: o.seed, start, best, evaluations, trace };
}

// ---------------------------------------------------------------------------------------------------------
// Taking content away from an honest plan

const wordCount = (text: string | undefined): number => (text ? (text.match(/[A-Za-z0-9][A-Za-z0-9'+#-]*/g) ?? []).length : 0);
const splitSentences = (text: string): string[] =>
  text
    .split(/(?<=[.!?;])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

/** The generic sentence that replaces a step's text: one of its phase (a question on a step asking the learner). */
function hollowText(step: Step, k: number, nouns?: readonly string[]): string {
  const p = stepPhase(step);
  const phase = p === 'activation' && !step.human_input ? 'demonstration' : (p ?? (step.human_input ? 'activation' : 'other'));
  return genericSentence(phase, k, nouns);
}

type RemovalEditKind = 'delete_step' | 'hollow_step' | 'delete_sentence' | 'drop_expected_output';

export interface RemovalEdit {
  kind: RemovalEditKind;
  step: string;
  plan: Plan;
}

/** Every edit that deletes one step, and every edit that replaces one step's text with a generic sentence: two per step. */
export function singleRemovalEdits(plan: Plan, nouns?: readonly string[]): RemovalEdit[] {
  return plan.steps.flatMap((s, i) => [
    { kind: 'delete_step' as const, step: s.id, plan: removeStep(plan, s.id) },
    { kind: 'hollow_step' as const, step: s.id, plan: replaceStep(plan, s.id, (x) => withText(x, hollowText(x, i, nouns))) },
  ]);
}

interface RemovalState {
  plan: Plan;
  /** Steps whose text is a generic sentence now: none of their original words are left. */
  hollow: ReadonlySet<string>;
}

/** The edits that take some content away from a state (steps kept at one or more). */
function removals(s: RemovalState, nouns: readonly string[]): { kind: RemovalEditKind; step: string; next: RemovalState }[] {
  const out: { kind: RemovalEditKind; step: string; next: RemovalState }[] = [];
  for (const [i, step] of s.plan.steps.entries()) {
    if (s.plan.steps.length > 1) out.push({ kind: 'delete_step', step: step.id, next: { plan: removeStep(s.plan, step.id), hollow: s.hollow } });
    if (s.hollow.has(step.id)) continue;
    out.push({
      kind: 'hollow_step',
      step: step.id,
      next: { plan: replaceStep(s.plan, step.id, (x) => withText(x, hollowText(x, i, nouns))), hollow: new Set([...s.hollow, step.id]) },
    });
    const sentences = splitSentences(step.instruction);
    if (sentences.length > 1) {
      for (let k = 0; k < sentences.length; k++) {
        const text = sentences.filter((_, j) => j !== k).join(' ');
        out.push({
          kind: 'delete_sentence',
          step: step.id,
          next: { plan: replaceStep(s.plan, step.id, (x) => ({ ...x, instruction: text })), hollow: s.hollow },
        });
      }
    }
    if (step.expected_output) {
      out.push({
        kind: 'drop_expected_output',
        step: step.id,
        next: {
          plan: replaceStep(s.plan, step.id, ({ expected_output: _, ...x }) => x),
          hollow: s.hollow,
        },
      });
    }
  }
  return out;
}

interface RemovalVisit {
  /** The share of the original plan's step words (instructions and expected outputs) no longer in the plan. */
  removed: number;
  score: number;
}

export interface RemovalReport {
  profile: RewardProfile;
  /** The honest plan's score. */
  original: number;
  /** Its step words. */
  words: number;
  /** Every plan the search evaluated. */
  visited: RemovalVisit[];
  evaluations: number;
  /** The highest-scoring visited plan among those with at least 30 % of the words removed. */
  best_hollowed: (RemovalVisit & { plan: Plan }) | null;
}

export interface RemovalOptions extends SearchOptions {
  /** Edits tried at each stage of a walk (all when fewer). */
  width?: number;
}

/**
 * From an honest plan, walks that take content away one edit at a time (delete a step or a sentence, drop an
 * expected output, replace a step's text with a generic sentence), each stage trying up to `width` edits and
 * keeping the best-scoring one (now and then another, after the first walk), until nothing is left to take
 * or the budget is spent. Reports every plan visited, with the share of words removed and its score.
 */
export function removalSearch(group: Group, honest: Plan, o: RemovalOptions): RemovalReport {
  const rand = mulberry32(o.seed * 7727 + 3);
  const nouns = materialOf(group).nouns;
  const judge = scorer(group, o);
  const words = honest.steps.reduce((n, s) => n + wordCount(s.instruction) + wordCount(s.expected_output), 0);
  const removedShare = (s: RemovalState) =>
    words === 0 ? 0 : 1 - s.plan.steps.reduce((n, x) => n + (s.hollow.has(x.id) ? 0 : wordCount(x.instruction) + wordCount(x.expected_output)), 0) / words;
  const original = judge(honest).score;
  const visited: RemovalVisit[] = [];
  let best: RemovalReport['best_hollowed'] = null;
  let evaluations = 1;
  const width = o.width ?? 12;
  for (let walk = 0; evaluations < o.budget; walk++) {
    const before = evaluations;
    let state: RemovalState = { plan: honest, hollow: new Set() };
    for (;;) {
      const options = removals(state, nouns);
      if (options.length === 0 || evaluations >= o.budget) break;
      const tried = (options.length <= width ? options : shuffleTake(options, width, rand)).slice(0, o.budget - evaluations);
      const scored = tried.map((t) => {
        evaluations++;
        const v = { removed: removedShare(t.next), score: judge(t.next.plan).score };
        visited.push(v);
        if (v.removed >= 0.3 && (!best || v.score > best.score)) best = { ...v, plan: t.next.plan };
        return { t, v };
      });
      scored.sort((a, b) => b.v.score - a.v.score || b.v.removed - a.v.removed);
      const chosen = walk > 0 && rand() < 0.3 ? pick(scored, rand) : scored[0]!;
      state = chosen.t.next;
    }
    if (evaluations === before) break;
  }
  return { profile: o.profile, original, words, visited, evaluations, best_hollowed: best };
}

function shuffleTake<T>(xs: readonly T[], n: number, rand: Rand): T[] {
  const out = [...xs];
  for (let i = 0; i < n && i < out.length; i++) {
    const j = i + Math.floor(rand() * (out.length - i));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out.slice(0, n);
}

/** The highest score among visited plans with at least `share` of the words removed; null when none was. */
export function maxScoreWithRemoved(r: Pick<RemovalReport, 'visited'>, share = 0.3): number | null {
  let best: number | null = null;
  for (const v of r.visited) if (v.removed >= share && (best === null || v.score > best)) best = v.score;
  return best;
}
