import { jsonPath } from './violations.js';

// The documented field variants a planner may emit, each rewritten to the canonical plan and reported.
// Anything not listed is left for schema validation to judge: no guessing beyond this table.
export interface Normalization {
  path: string;
  rule: NormalizationRule;
  detail: string;
}

export type NormalizationRule =
  | 'unwrap_plan'
  | 'field_alias'
  | 'id_number_to_string'
  | 'scalar_to_list'
  | 'null_to_empty_list'
  | 'missing_list_to_empty'
  | 'empty_tool_to_null';

export const FIELD_ALIASES = {
  plan: { executionOrder: 'execution_order', order: 'execution_order' },
  agent: { agent_id: 'id', allowed_tools: 'tools' },
  subtask: { subtask_id: 'id', title: 'name', assigned_agent: 'agent' },
  step: {
    step_id: 'id',
    dependencies: 'depends_on',
    depends: 'depends_on',
    prerequisites: 'depends_on',
    subtask_id: 'subtask',
    agent_id: 'agent',
    tool_name: 'tool',
    human_in_the_loop: 'human_input',
    requires_human_input: 'human_input',
  },
  loop: { loop_id: 'id', steps: 'nodes', body: 'nodes', max_iters: 'max_iterations', max_iter: 'max_iterations' },
} as const satisfies Record<string, Record<string, string>>;

/** Tool values that mean "no tool". */
const NO_TOOL = new Set(['', 'none', 'null', 'n/a']);

type Obj = Record<string, unknown>;
type Path = PropertyKey[];

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

class Normalizer {
  readonly log: Normalization[] = [];

  note(path: Path, rule: NormalizationRule, detail: string): void {
    this.log.push({ path: jsonPath(path), rule, detail });
  }

  aliases(obj: Obj, table: Record<string, string>, path: Path): Obj {
    let out = obj;
    for (const [from, to] of Object.entries(table)) {
      if (from in obj && !(to in obj)) {
        if (out === obj) out = { ...obj };
        out[to] = obj[from];
        delete out[from];
        this.note([...path, from], 'field_alias', `${from} → ${to}`);
      }
    }
    return out;
  }

  idString(v: unknown, path: Path): unknown {
    if (typeof v === 'number' && Number.isFinite(v)) {
      this.note(path, 'id_number_to_string', `${v} → "${v}"`);
      return String(v);
    }
    return v;
  }

  idList(v: unknown, path: Path, field: string, missing: 'empty' | 'keep'): unknown {
    if (v === undefined) {
      if (missing === 'keep') return v;
      this.note(path, 'missing_list_to_empty', `${field} absent → []`);
      return [];
    }
    if (v === null) {
      this.note(path, 'null_to_empty_list', `${field}: null → []`);
      return [];
    }
    if (typeof v === 'string' || typeof v === 'number') {
      this.note(path, 'scalar_to_list', `${field}: ${JSON.stringify(v)} → [${JSON.stringify(String(v))}]`);
      return [String(v)];
    }
    if (Array.isArray(v)) return v.map((x, i) => this.idString(x, [...path, i]));
    return v;
  }

  each(list: unknown, path: Path, fn: (item: Obj, path: Path) => Obj): unknown {
    if (!Array.isArray(list)) return list;
    return list.map((item, i) => (isObj(item) ? fn(item, [...path, i]) : item));
  }

  agent = (a: Obj, path: Path): Obj => {
    const o = { ...this.aliases(a, FIELD_ALIASES.agent, path) };
    o.id = this.idString(o.id, [...path, 'id']);
    o.tools = this.idList(o.tools, [...path, 'tools'], 'tools', 'empty');
    return o;
  };

  subtask = (s: Obj, path: Path): Obj => {
    const o = { ...this.aliases(s, FIELD_ALIASES.subtask, path) };
    o.id = this.idString(o.id, [...path, 'id']);
    if (o.agent !== undefined) o.agent = this.idString(o.agent, [...path, 'agent']);
    return o;
  };

  step = (s: Obj, path: Path): Obj => {
    const o = { ...this.aliases(s, FIELD_ALIASES.step, path) };
    o.id = this.idString(o.id, [...path, 'id']);
    o.subtask = this.idString(o.subtask, [...path, 'subtask']);
    o.agent = this.idString(o.agent, [...path, 'agent']);
    o.depends_on = this.idList(o.depends_on, [...path, 'depends_on'], 'depends_on', 'empty');
    if (typeof o.tool === 'string' && NO_TOOL.has(o.tool.trim().toLowerCase())) {
      this.note([...path, 'tool'], 'empty_tool_to_null', `${JSON.stringify(o.tool)} → null`);
      o.tool = null;
    }
    return o;
  };

  loop = (l: Obj, path: Path): Obj => {
    const o = { ...this.aliases(l, FIELD_ALIASES.loop, path) };
    if (o.id !== undefined) o.id = this.idString(o.id, [...path, 'id']);
    o.nodes = this.idList(o.nodes, [...path, 'nodes'], 'nodes', 'keep');
    return o;
  };

  plan(raw: Obj): Obj {
    let root = raw;
    if (!('steps' in root) && !('agents' in root) && isObj(root.plan)) {
      this.note(['plan'], 'unwrap_plan', '{ plan: {...} } → {...}');
      root = root.plan;
    }
    const p = { ...this.aliases(root, FIELD_ALIASES.plan, []) };
    p.agents = this.each(p.agents, ['agents'], this.agent);
    p.subtasks = this.each(p.subtasks, ['subtasks'], this.subtask);
    p.steps = this.each(p.steps, ['steps'], this.step);
    p.execution_order = this.idList(p.execution_order, ['execution_order'], 'execution_order', 'keep');
    if (p.loops !== undefined) p.loops = this.each(p.loops, ['loops'], this.loop);
    return p;
  }
}

/** Rewrites the documented variants without mutating the input. */
export function normalizePlan(raw: Record<string, unknown>): { plan: Record<string, unknown>; normalizations: Normalization[] } {
  const n = new Normalizer();
  const plan = n.plan(raw);
  return { plan, normalizations: n.log };
}
