import { closest, distance } from 'fastest-levenshtein';
import { PLAN_FIELDS } from '../contracts/plan.js';
import type { Violation } from '../contracts/results.js';
import { jsonPath } from '../common/json-path.js';
import { violation } from './violations.js';

// Keys the plan schema does not know, after the documented field variants were rewritten
// (plan/normalize.ts). They are dropped from the plan either way; reporting them is what makes a typo
// such as `depends_om` visible instead of a silently missing dependency.
const MAX_REPORTED = 20;
const LISTS = [
  ['agents', PLAN_FIELDS.agent],
  ['subtasks', PLAN_FIELDS.subtask],
  ['steps', PLAN_FIELDS.step],
  ['loops', PLAN_FIELDS.loop],
] as const;

interface Unknown {
  path: (string | number)[];
  key: string;
  known: readonly string[];
}

// Every plan is checked and few have an unknown key: a clean object allocates nothing (for-in, unlike
// Object.keys, lists no keys into an array; JSON objects inherit none).
function check(value: unknown, known: readonly string[], found: Unknown[], list?: string, index?: number): void {
  if (typeof value !== 'object' || value === null) return;
  for (const key in value) {
    if (!known.includes(key)) found.push({ path: list === undefined ? [key] : [list, index!, key], key, known });
  }
}

/** `unknown_field` warnings for a normalized plan object that the schema accepted. */
export function unknownFields(plan: Record<string, unknown>): Violation[] {
  const found: Unknown[] = [];
  check(plan, PLAN_FIELDS.plan, found);
  for (const [list, known] of LISTS) {
    const items = plan[list];
    if (Array.isArray(items)) for (let i = 0; i < items.length; i++) check(items[i], known, found, list, i);
  }
  const out = found.slice(0, MAX_REPORTED).map(({ path, key, known }) => {
    const near = closest(key, known as string[]);
    const hint = distance(key, near) <= 2 ? ` (did you mean \`${near}\`?)` : '';
    return violation('unknown_field', jsonPath(path), `unknown field \`${key}\` ignored${hint}`);
  });
  if (found.length > MAX_REPORTED) out.push(violation('unknown_field', '$', `${found.length - MAX_REPORTED} further unknown fields not listed`));
  return out;
}
