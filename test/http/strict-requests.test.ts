// One rule for every route (issue 78): an object of a request — body or query string, at any depth — takes only
// the keys its schema names; any other key is a 400 naming it, with the key it is a near miss of, or the place
// it belongs. Properties over every route of the OpenAPI document, from each request's own example.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import t from 'tap';
import { jsonPath } from '../../src/common/json-path.js';
import { testApp } from '../support/app.js';

type Schema = {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  examples?: unknown[];
};
const doc = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> }; parameters?: { in: string; name: string }[] }>>;
  components: { schemas: Record<string, Schema> };
};
const resolve = (s: Schema): Schema => (s.$ref ? resolve(doc.components.schemas[s.$ref.split('/').pop()!]!) : s);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// Objects that stay open, each for a reason of its users': a learner profile carries a data set's other
// columns; OpenRLHF's trainer sends its own keys beside query, prompts and labels.
const OPEN = ['LearnerProfileObject', 'OpenRlhfRequest'];

/** The schema of `value` among a union's branches: the object branch that names all its keys. */
function branch(s: Schema, value: unknown): Schema {
  const r = resolve(s);
  const options = r.anyOf ?? r.oneOf;
  if (!options) return r;
  const fits = options
    .map(resolve)
    .find((o) => (isObject(value) ? o.properties && Object.keys(value).every((k) => k in o.properties!) : o.type === 'array' && Array.isArray(value)));
  return fits ?? r;
}

interface Node {
  path: (string | number)[];
  known: string[];
}
/** Every object of `value` whose schema is closed, with its path and the keys it may have. */
function closedNodes(s: Schema, value: unknown, path: (string | number)[] = [], out: Node[] = []): Node[] {
  const r = branch(s, value);
  if (isObject(value) && r.properties) {
    if (r.additionalProperties === false) out.push({ path, known: Object.keys(r.properties) });
    for (const [k, v] of Object.entries(value)) if (r.properties[k]) closedNodes(r.properties[k]!, v, [...path, k], out);
  } else if (Array.isArray(value) && r.items) {
    for (const [i, v] of value.entries()) closedNodes(r.items, v, [...path, i], out);
  }
  return out;
}

interface Route {
  method: string;
  url: string;
  example: unknown;
  schema: Schema;
}
const routes: Route[] = [];
for (const [path, methods] of Object.entries(doc.paths)) {
  for (const [method, op] of Object.entries(methods)) {
    const schema = op.requestBody?.content['application/json']?.schema;
    if (!schema) continue;
    const example = resolve(schema).examples?.[0];
    // A run of its own per route, counted nowhere that matters.
    const url = path.replace('{id}', 'strict-keys') + (path === '/openrlhf/reward' ? '?count=false' : '');
    if (example !== undefined) routes.push({ method: method.toUpperCase(), url, example, schema });
  }
}

const app = await testApp();
t.teardown(() => app.close());
const send = (r: Route, body: unknown, url = r.url) => app.inject({ method: r.method as 'POST', url, payload: body as object });

t.test('every object schema of every request is closed, but the documented open ones', async (t) => {
  const open = new Set<string>();
  const seen = new Set<Schema>();
  const walk = (s: Schema, name?: string) => {
    if (seen.has(s)) return;
    seen.add(s);
    if (s.$ref) return walk(doc.components.schemas[s.$ref.split('/').pop()!]!, s.$ref.split('/').pop());
    if (s.properties && s.additionalProperties !== false) open.add(name ?? JSON.stringify(Object.keys(s.properties)));
    for (const v of Object.values(s.properties ?? {})) walk(v);
    if (s.items) walk(s.items);
    for (const b of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) walk(b);
  };
  for (const methods of Object.values(doc.paths))
    for (const op of Object.values(methods)) {
      const s = op.requestBody?.content['application/json']?.schema;
      if (s) walk(s);
    }
  t.same([...open].sort(), [...OPEN].sort());
  t.ok(routes.length >= 12, `${routes.length} routes with a request example`);
});

t.test('every example is accepted as it is', async (t) => {
  for (const r of routes) t.not((await send(r, r.example)).statusCode, 400, `${r.method} ${r.url}`);
});

/** The example with `key` set to `value` in the object at `path`. */
function withKey(example: unknown, path: (string | number)[], key: string, value: unknown, drop?: string): unknown {
  const copy = structuredClone(example) as Record<string, unknown>;
  let at: Record<string | number, unknown> = copy;
  for (const p of path) at = at[p] as Record<string | number, unknown>;
  if (drop !== undefined) delete at[drop];
  at[key] = value;
  return copy;
}

const cases = fc.constantFrom(...routes.flatMap((r) => closedNodes(r.schema, r.example).map((node) => ({ r, node }))));

t.test('an unknown key at any depth of any request: 400 at its own path, named', async (t) => {
  await fc.assert(
    fc.asyncProperty(cases, fc.stringMatching(/^[a-z][a-z0-9_]{5,14}$/), fc.jsonValue({ maxDepth: 1 }), async ({ r, node }, key, value) => {
      fc.pre(!node.known.includes(key));
      const res = await send(r, withKey(r.example, node.path, key, value));
      const issue = res.json().issues?.find((i: { path: string }) => i.path === jsonPath([...node.path, key]));
      return res.statusCode === 400 && res.json().code === 'invalid_request' && issue?.message.startsWith(`unknown key \`${key}\``) === true;
    }),
    { numRuns: 200 },
  );
  t.pass('property held');
});

t.test('a known key misspelt by one letter: the 400 says which key was meant', async (t) => {
  const long = routes.flatMap((r) => closedNodes(r.schema, r.example).map((node) => ({ r, node }))).filter(({ node }) => node.known.some((k) => k.length >= 6));
  const misspelt = fc.constantFrom(...long).chain(({ r, node }) =>
    fc.record({
      r: fc.constant(r),
      node: fc.constant(node),
      key: fc.constantFrom(...node.known.filter((k) => k.length >= 6)),
      at: fc.nat(),
      letter: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'),
    }),
  );
  await fc.assert(
    fc.asyncProperty(misspelt, async ({ r, node, key, at, letter }) => {
      const i = at % key.length;
      const typo = key.slice(0, i) + letter + key.slice(i + 1);
      fc.pre(!node.known.includes(typo));
      const res = await send(r, withKey(r.example, node.path, typo, 1));
      return res.statusCode === 400 && res.json().issues.some((x: { message: string }) => x.message.includes(`did you mean \`${key}\`?`));
    }),
    { numRuns: 150 },
  );
  t.pass('property held');
});

t.test('the reported frictions: a key in the wrong place says where it goes; typos of run_id and options are named', async (t) => {
  const score = routes.find((r) => r.url === '/score-plan')!;
  const res = await send(score, { ...(score.example as object), runid: 'x', step: 5, reward_profile: 'guarded', option: { strict: true } });
  t.equal(res.statusCode, 400);
  t.same(
    res.json().issues.map((i: { path: string; message: string }) => [i.path, i.message]),
    [
      ['$.runid', 'unknown key `runid`: did you mean `run_id`?'],
      ['$.reward_profile', 'unknown key `reward_profile` here: `reward_profile` goes in `$.options`'],
      ['$.option', 'unknown key `option`: did you mean `options`?'],
    ],
  );
  const inGroup = await send(score, withKey(score.example, ['groups', 0], 'reward_profile', 'guarded'));
  t.match(inGroup.json().issues, [{ path: '$.groups[0].reward_profile', message: /goes in `\$\.options`/ }]);
  const query = await app.inject({ method: 'GET', url: '/runs?limt=5' });
  t.equal(query.statusCode, 400);
  t.match(query.json().issues, [{ path: '$.limt', message: 'unknown key `limt`: did you mean `limit`?' }]);
});
