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

interface AliasTable {
  entries: Array<[string, string]>;
  names: ReadonlySet<string>;
}

const ALIASES = Object.fromEntries(
  Object.entries(FIELD_ALIASES).map(([k, table]): [string, AliasTable] => [k, { entries: Object.entries(table), names: new Set(Object.keys(table)) }]),
) as { [K in keyof typeof FIELD_ALIASES]: AliasTable };

/** Tool values that mean "no tool". */
const NO_TOOL = new Set(['', 'none', 'null', 'n/a']);

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// Paths are only rendered when something is rewritten: the common, clean plan allocates nothing here. The
// item being read is kept as its list and index, and its path written only for a note.
class Normalizer {
  readonly log: Normalization[] = [];
  #list: string | null = null;
  #index = 0;

  note(field: string, rule: NormalizationRule, detail: string, at?: number): void {
    const base = this.#list === null ? '$' : `$.${this.#list}[${this.#index}]`;
    this.log.push({ path: at === undefined ? `${base}.${field}` : `${base}.${field}[${at}]`, rule, detail });
  }

  aliases(obj: Obj, table: AliasTable): void {
    // Most objects use no variant: their own few keys are looked up, not every variant's absence.
    let any = false;
    for (const key in obj) {
      if (table.names.has(key)) {
        any = true;
        break;
      }
    }
    if (!any) return;
    for (const [from, to] of table.entries) {
      if (obj[from] !== undefined && obj[to] === undefined) {
        obj[to] = obj[from];
        delete obj[from];
        this.note(from, 'field_alias', `${from} → ${to}`);
      }
    }
  }

  idField(obj: Obj, field: string): void {
    const v = obj[field];
    if (typeof v === 'number' && Number.isFinite(v)) {
      obj[field] = String(v);
      this.note(field, 'id_number_to_string', `${v} → "${v}"`);
    }
  }

  idList(obj: Obj, field: string, whenMissing: 'empty' | 'keep'): void {
    const v = obj[field];
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (typeof x === 'number' && Number.isFinite(x)) {
          v[i] = String(x);
          this.note(field, 'id_number_to_string', `${x} → "${x}"`, i);
        }
      }
    } else if (v === undefined) {
      if (whenMissing === 'empty') {
        obj[field] = [];
        this.note(field, 'missing_list_to_empty', `${field} absent → []`);
      }
    } else if (v === null) {
      obj[field] = [];
      this.note(field, 'null_to_empty_list', `${field}: null → []`);
    } else if (typeof v === 'string' || typeof v === 'number') {
      obj[field] = [String(v)];
      this.note(field, 'scalar_to_list', `${field}: ${JSON.stringify(v)} → [${JSON.stringify(String(v))}]`);
    }
  }

  each(list: unknown, kind: 'agents' | 'subtasks' | 'steps' | 'loops'): void {
    if (!Array.isArray(list)) return;
    this.#list = kind;
    for (let i = 0; i < list.length; i++) {
      const item: unknown = list[i];
      if (!isObj(item)) continue;
      this.#index = i;
      if (kind === 'agents') this.agent(item);
      else if (kind === 'subtasks') this.subtask(item);
      else if (kind === 'steps') this.step(item);
      else this.loop(item);
    }
    this.#list = null;
  }

  agent(a: Obj): void {
    this.aliases(a, ALIASES.agent);
    this.idField(a, 'id');
    this.idList(a, 'tools', 'empty');
  }

  subtask(s: Obj): void {
    this.aliases(s, ALIASES.subtask);
    this.idField(s, 'id');
    this.idField(s, 'agent');
  }

  step(s: Obj): void {
    this.aliases(s, ALIASES.step);
    this.idField(s, 'id');
    this.idField(s, 'subtask');
    this.idField(s, 'agent');
    this.idList(s, 'depends_on', 'empty');
    if (typeof s.tool === 'string' && NO_TOOL.has(s.tool.trim().toLowerCase())) {
      this.note('tool', 'empty_tool_to_null', `${JSON.stringify(s.tool)} → null`);
      s.tool = null;
    }
  }

  loop(l: Obj): void {
    this.aliases(l, ALIASES.loop);
    this.idField(l, 'id');
    this.idList(l, 'nodes', 'keep');
  }

  plan(raw: Obj): Obj {
    let p = raw;
    if (p.steps === undefined && p.agents === undefined && isObj(p.plan)) {
      this.note('plan', 'unwrap_plan', '{ plan: {...} } → {...}');
      p = p.plan;
    }
    this.aliases(p, ALIASES.plan);
    this.each(p.agents, 'agents');
    this.each(p.subtasks, 'subtasks');
    this.each(p.steps, 'steps');
    this.idList(p, 'execution_order', 'keep');
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
