import type { Normalization } from '../contracts/results.js';
import type { NormalizationRule } from '../contracts/violations.js';

// The documented field variants a planner may emit, each rewritten to the canonical plan and reported.
// Anything not listed is left for schema validation to judge: no guessing beyond this table.

const FIELD_ALIASES = {
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

const ALIAS_ENTRIES = Object.fromEntries(Object.entries(FIELD_ALIASES).map(([k, table]) => [k, Object.entries(table)])) as {
  [K in keyof typeof FIELD_ALIASES]: Array<[string, string]>;
};

/** Tool values that mean "no tool". */
const NO_TOOL = new Set(['', 'none', 'null', 'n/a']);

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// Paths are only rendered when something is rewritten: the common, clean plan allocates nothing here.
class Normalizer {
  readonly log: Normalization[] = [];

  note(base: string, field: string | number, rule: NormalizationRule, detail: string): void {
    this.log.push({ path: typeof field === 'number' ? `${base}[${field}]` : `${base}.${field}`, rule, detail });
  }

  aliases(obj: Obj, table: Array<[string, string]>, base: string): void {
    for (const [from, to] of table) {
      if (obj[from] !== undefined && obj[to] === undefined) {
        obj[to] = obj[from];
        delete obj[from];
        this.note(base, from, 'field_alias', `${from} → ${to}`);
      }
    }
  }

  idField(obj: Obj, field: string, base: string): void {
    const v = obj[field];
    if (typeof v === 'number' && Number.isFinite(v)) {
      obj[field] = String(v);
      this.note(base, field, 'id_number_to_string', `${v} → "${v}"`);
    }
  }

  idList(obj: Obj, field: string, base: string, whenMissing: 'empty' | 'keep'): void {
    const v = obj[field];
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (typeof x === 'number' && Number.isFinite(x)) {
          v[i] = String(x);
          this.note(`${base}.${field}`, i, 'id_number_to_string', `${x} → "${x}"`);
        }
      }
    } else if (v === undefined) {
      if (whenMissing === 'empty') {
        obj[field] = [];
        this.note(base, field, 'missing_list_to_empty', `${field} absent → []`);
      }
    } else if (v === null) {
      obj[field] = [];
      this.note(base, field, 'null_to_empty_list', `${field}: null → []`);
    } else if (typeof v === 'string' || typeof v === 'number') {
      obj[field] = [String(v)];
      this.note(base, field, 'scalar_to_list', `${field}: ${JSON.stringify(v)} → [${JSON.stringify(String(v))}]`);
    }
  }

  each(list: unknown, kind: 'agents' | 'subtasks' | 'steps' | 'loops'): void {
    if (!Array.isArray(list)) return;
    for (let i = 0; i < list.length; i++) {
      const item: unknown = list[i];
      if (!isObj(item)) continue;
      const path = `$.${kind}[${i}]`;
      if (kind === 'agents') this.agent(item, path);
      else if (kind === 'subtasks') this.subtask(item, path);
      else if (kind === 'steps') this.step(item, path);
      else this.loop(item, path);
    }
  }

  agent(a: Obj, path: string): void {
    this.aliases(a, ALIAS_ENTRIES.agent, path);
    this.idField(a, 'id', path);
    this.idList(a, 'tools', path, 'empty');
  }

  subtask(s: Obj, path: string): void {
    this.aliases(s, ALIAS_ENTRIES.subtask, path);
    this.idField(s, 'id', path);
    this.idField(s, 'agent', path);
  }

  step(s: Obj, path: string): void {
    this.aliases(s, ALIAS_ENTRIES.step, path);
    this.idField(s, 'id', path);
    this.idField(s, 'subtask', path);
    this.idField(s, 'agent', path);
    this.idList(s, 'depends_on', path, 'empty');
    if (typeof s.tool === 'string' && NO_TOOL.has(s.tool.trim().toLowerCase())) {
      this.note(path, 'tool', 'empty_tool_to_null', `${JSON.stringify(s.tool)} → null`);
      s.tool = null;
    }
  }

  loop(l: Obj, path: string): void {
    this.aliases(l, ALIAS_ENTRIES.loop, path);
    this.idField(l, 'id', path);
    this.idList(l, 'nodes', path, 'keep');
  }

  plan(raw: Obj): Obj {
    let p = raw;
    if (p.steps === undefined && p.agents === undefined && isObj(p.plan)) {
      this.note('$', 'plan', 'unwrap_plan', '{ plan: {...} } → {...}');
      p = p.plan;
    }
    this.aliases(p, ALIAS_ENTRIES.plan, '$');
    this.each(p.agents, 'agents');
    this.each(p.subtasks, 'subtasks');
    this.each(p.steps, 'steps');
    this.idList(p, 'execution_order', '$', 'keep');
    this.each(p.loops, 'loops');
    return p;
  }
}

/**
 * Rewrites the documented variants in place and reports each. The caller owns `raw` (it was parsed for
 * this request), so no copy is made.
 */
export function normalizePlan(raw: Record<string, unknown>): { plan: Record<string, unknown>; normalizations: Normalization[] } {
  const n = new Normalizer();
  const plan = n.plan(raw);
  return { plan, normalizations: n.log };
}
