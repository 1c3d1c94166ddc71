import { readFile } from 'node:fs/promises';
import t from 'tap';
import { EXAMPLE_RUN_ID } from '../src/contracts/runs.js';
import { openApiDocument } from '../src/openapi.js';
import { testApp } from './support/app.js';

t.test('the committed openapi/openapi.json is what the route schemas generate (run `npm run openapi`)', async (t) => {
  const committed = await readFile(new URL('../openapi/openapi.json', import.meta.url), 'utf8');
  const generated = await openApiDocument();
  t.equal(generated, committed);
  const doc = JSON.parse(generated);
  t.same(Object.keys(doc.paths).sort(), [
    '/',
    '/dialogue/next',
    '/evaluate-dialogue',
    '/evaluate-plan',
    '/evaluate-text',
    '/evaluate-text/corpus',
    '/health',
    '/metrics',
    '/openrlhf/reward',
    '/ready',
    '/runs',
    '/runs/{id}',
    '/runs/{id}/finalize',
    '/runs/{id}/history',
    '/score-plan',
    '/trace-knowledge',
    '/trace-knowledge/fit',
    '/validate-plan',
    '/verify-turn',
  ]);
  t.ok(doc.components.schemas.VerifyTurnRequest.examples.length > 0);
  t.ok(doc.components.schemas.ScorePlanRequest.examples.length > 0, 'Swagger UI has a request to try');
  t.equal(doc.info.title, 'Tutor reward service', 'the product name');
});

t.test("Swagger UI's examples never write to a shared run", async (t) => {
  const doc = JSON.parse(await openApiDocument());
  t.notMatch(JSON.stringify(doc), /"examples?":\s*\[?\s*"default"/, 'no example names the default run');
  const writes = Object.entries(doc.paths as Record<string, Record<string, OperationDoc>>).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method]) => method !== 'get')
      .map(([method, op]) => ({ at: `${method.toUpperCase()} ${path}`, op })),
  );
  const runParameters = writes.flatMap(({ at, op }) =>
    (op.parameters ?? []).filter((p) => (p.in === 'path' && p.name === 'id') || (p.in === 'query' && p.name === 'run_id')).map((p) => ({ at, p })),
  );
  t.same(
    runParameters.map(({ at }) => at).sort(),
    ['DELETE /runs/{id}', 'POST /openrlhf/reward', 'POST /runs/{id}/finalize', 'PUT /runs/{id}'],
    'the writes that name a run in the URL',
  );
  for (const { at, p } of runParameters) t.equal(p.example, EXAMPLE_RUN_ID, `${at}: ${p.name} is the example run`);
  const count = doc.paths['/openrlhf/reward'].post.parameters.find((p: { name: string }) => p.name === 'count');
  t.equal(count.example, 'false', '/openrlhf/reward scores the example without counting it');
  for (const { at, op } of writes) {
    const example = op.requestBody?.content['application/json']?.example as Record<string, unknown> | undefined;
    if (example && 'groups' in example) t.equal(example.run_id, null, `${at}: the example body is stateless`);
  }
  t.ok(
    writes.some(({ at }) => at === 'POST /score-plan'),
    'the /score-plan example is among those checked',
  );
});

t.test('the document is tidy: one component per type, all used, every operation named, every response described', async (t) => {
  const doc = JSON.parse(await openApiDocument());
  const text = JSON.stringify(doc);
  const names = Object.keys(doc.components.schemas);
  t.same(
    names.filter((n) => n.endsWith('Input')),
    [],
    'no XInput twins',
  );
  const refs = new Set([...text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!));
  t.same(
    [...refs].filter((r) => !names.includes(r)),
    [],
    'every reference resolves',
  );
  t.same(
    names.filter((n) => !refs.has(n)),
    [],
    'every component is referenced',
  );
  t.notMatch(text, /9007199254740991/, 'no ±2^53 bounds');
  const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops as object).map(([method, op]) => ({
      at: `${method} ${path}`,
      ...(op as { operationId?: string; responses: Record<string, { description: string }> }),
    })),
  );
  t.same(
    operations.filter((o) => !o.operationId).map((o) => o.at),
    [],
    'every operation has an operationId',
  );
  t.equal(new Set(operations.map((o) => o.operationId)).size, operations.length, 'operationIds are unique');
  const undescribed = operations.flatMap((o) =>
    Object.entries(o.responses)
      .filter(([, r]) => !r.description || r.description === 'Default Response')
      .map(([code]) => `${o.at} ${code}`),
  );
  t.same(undescribed, [], 'every response has a description');
});

t.test('every operation that takes input declares its 400, and every request body has an example the service accepts', async (t) => {
  const doc = JSON.parse(await openApiDocument());
  const app = await testApp();
  t.teardown(() => app.close());
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, OperationDoc>>)) {
    for (const [method, op] of Object.entries(ops)) {
      const at = `${method.toUpperCase()} ${path}`;
      if ((op.parameters ?? []).length > 0 || op.requestBody) t.ok(op.responses['400'], `${at} declares 400`);
      if (!op.requestBody) continue;
      const example = op.requestBody.content['application/json']?.example;
      t.not(example, undefined, `${at} has a request example`);
      // Path and query parameters take their documented examples, as Swagger UI fills them in.
      const url = path.replace('{id}', 'openapi-example') + (path === '/openrlhf/reward' ? '?run_id=openapi-example' : '');
      const res = await app.inject({ method: method.toUpperCase() as 'POST' | 'PUT', url, payload: example as object });
      t.ok(res.statusCode === 200 || res.statusCode === 201, `${at} accepts its example: ${res.body.slice(0, 300)}`);
    }
  }
});

interface OperationDoc {
  parameters?: { in: string; name: string; example?: unknown }[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, unknown>;
}
