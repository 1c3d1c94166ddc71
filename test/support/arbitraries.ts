import fc from 'fast-check';
import { EXAMPLE_PLAN } from '../../src/contracts/examples.js';

type Json = unknown;

function paths(value: Json, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (Array.isArray(value))
    value.forEach((v, i) => {
      paths(v, [...prefix, i], out);
    });
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) paths(v, [...prefix, k], out);
  return out;
}

const ALL_PATHS = paths(EXAMPLE_PLAN);

function apply(root: Json, path: (string | number)[], op: 'set' | 'delete', value: Json): Json {
  if (path.length === 0) return op === 'set' ? value : {};
  if (typeof root !== 'object' || root === null) return root; // an earlier edit replaced the whole plan
  const copy = structuredClone(root) as Record<string | number, Json>;
  let node = copy;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) return copy; // an earlier edit removed this path
    node = next as Record<string | number, Json>;
  }
  const last = path[path.length - 1]!;
  if (op === 'delete') {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else node[last] = value;
  return copy;
}

/** The example plan with 1–4 random edits: values replaced by arbitrary JSON, or fields deleted. */
export const mutatedPlan = fc
  .array(fc.tuple(fc.nat(ALL_PATHS.length - 1), fc.constantFrom<'set' | 'delete'>('set', 'delete'), fc.jsonValue({ maxDepth: 3 })), {
    minLength: 1,
    maxLength: 4,
  })
  .map((edits) => edits.reduce<Json>((plan, [i, op, v]) => apply(plan, ALL_PATHS[i]!, op, v), EXAMPLE_PLAN));

/** Plan text as a model might emit it, possibly truncated or wrapped in prose. */
export const completionText = fc.oneof(
  mutatedPlan.map((p) => JSON.stringify(p)),
  fc.tuple(mutatedPlan, fc.nat()).map(([p, n]) => {
    const s = JSON.stringify(p);
    return s.slice(0, n % (s.length + 1));
  }),
  mutatedPlan.map((p) => `Plan:\n\`\`\`json\n${JSON.stringify(p, null, 1)}\n\`\`\``),
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
);
