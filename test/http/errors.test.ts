// One table from what went wrong to its answer (src/contracts/errors.ts, read by src/http/errors.ts): each
// kind of failure a client can cause has its status and machine-readable code.
import { readFile } from 'node:fs/promises';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { InjectOptions } from 'fastify';
import t from 'tap';
import Fastify from 'fastify';
import { renderErrorTable, withErrorTable } from '../../scripts/errors-doc.js';
import { ServiceError } from '../../src/common/errors.js';
import { ERROR_CODES, ERRORS, type ErrorCode } from '../../src/contracts/errors.js';
import { installErrorHandler } from '../../src/http/errors.js';
import { EXAMPLE_SCORE_REQUEST } from '../../src/contracts/examples.js';
import { testApp } from '../support/app.js';

t.test('each failure a client can cause has its status and code', async (t) => {
  const app = await testApp({ BODY_LIMIT_BYTES: 64 * 1024 });
  t.teardown(() => app.close());
  const json = { 'content-type': 'application/json' };
  const scored = { ...EXAMPLE_SCORE_REQUEST, run_id: 'errors', step: 0 };
  const first = await app.inject({ method: 'POST', url: '/score-plan', headers: { ...json, 'idempotency-key': 'k' }, payload: JSON.stringify(scored) });
  t.equal(first.statusCode, 200, first.body.slice(0, 200));

  const cases: [string, InjectOptions, number, string][] = [
    ['a field of the wrong type', { method: 'POST', url: '/validate-plan', payload: { completion: {}, options: { strict: 'yes' } } }, 400, 'invalid_request'],
    ['broken JSON', { method: 'POST', url: '/validate-plan', headers: json, payload: '{"completion": ' }, 400, 'invalid_json'],
    ['broken JSON read on a worker', { method: 'POST', url: '/trace-knowledge/fit', headers: json, payload: '{"rows": [' }, 400, 'invalid_json'],
    [
      'a body over BODY_LIMIT_BYTES',
      { method: 'POST', url: '/validate-plan', headers: json, payload: JSON.stringify({ completion: 'x'.repeat(70_000) }) },
      413,
      'body_too_large',
    ],
    [
      'a body that is not JSON',
      { method: 'POST', url: '/validate-plan', headers: { 'content-type': 'text/csv' }, payload: 'a,b' },
      415,
      'unsupported_media_type',
    ],
    [
      'JSON sent as text/plain',
      { method: 'POST', url: '/validate-plan', headers: { 'content-type': 'text/plain' }, payload: '{"plan": "x"}' },
      415,
      'unsupported_media_type',
    ],
    [
      'a body without content-type',
      { method: 'POST', url: '/validate-plan', headers: { 'content-type': '' }, payload: '{"plan": "x"}' },
      415,
      'unsupported_media_type',
    ],
    [
      'a brotli body',
      { method: 'POST', url: '/validate-plan', headers: { ...json, 'content-encoding': 'br' }, payload: brotliCompressSync('{"plan": "x"}') },
      415,
      'unsupported_encoding',
    ],
    [
      'a body that says gzip and is not',
      { method: 'POST', url: '/validate-plan', headers: { ...json, 'content-encoding': 'gzip' }, payload: '{"plan": "x"}' },
      400,
      'invalid_encoding',
    ],
    [
      'a gzip body that inflates past BODY_LIMIT_BYTES (65 KiB of gzip, 64 MiB inflated)',
      { method: 'POST', url: '/validate-plan', headers: { ...json, 'content-encoding': 'gzip' }, payload: gzipSync(Buffer.alloc(64 * 1024 * 1024, 32)) },
      413,
      'body_too_large',
    ],
    ['a known path with another method', { method: 'GET', url: '/score-plan' }, 405, 'method_not_allowed'],
    ['no such route', { method: 'GET', url: '/nope' }, 404, 'route_not_found'],
    // What is wrong is the path, whatever the body.
    ['no such route, with broken JSON', { method: 'POST', url: '/nope', headers: json, payload: '{' }, 404, 'route_not_found'],
    [
      'no such route, with a gzip body',
      { method: 'POST', url: '/nope', headers: { ...json, 'content-encoding': 'gzip' }, payload: gzipSync('{"a":1}') },
      404,
      'route_not_found',
    ],
    [
      'no such route, with a brotli body',
      { method: 'POST', url: '/nope', headers: { ...json, 'content-encoding': 'br' }, payload: 'x' },
      404,
      'route_not_found',
    ],
    ['a known path with another method and broken JSON', { method: 'PUT', url: '/score-plan', headers: json, payload: '{' }, 405, 'method_not_allowed'],
    ['no such run', { method: 'GET', url: '/runs/no-such-run' }, 404, 'run_not_found'],
    ['no such run to delete', { method: 'DELETE', url: '/runs/no-such-run' }, 404, 'run_not_found'],
    [
      'an Idempotency-Key reused for another body',
      { method: 'POST', url: '/score-plan', headers: { ...json, 'idempotency-key': 'k' }, payload: JSON.stringify({ ...scored, options: { strict: true } }) },
      409,
      'idempotency_conflict',
    ],
  ];
  for (const [name, request, status, code] of cases) {
    const res = await app.inject(request);
    t.equal(res.statusCode, status, `${name}: ${res.body.slice(0, 200)}`);
    t.match(res.json(), { statusCode: status, code }, name);
    t.ok(ERROR_CODES.includes(res.json().code), `${name}: a documented code`);
  }
  const notFound = await app.inject({ method: 'GET', url: '/runs/no-such-run' });
  t.same(
    notFound.json(),
    { statusCode: 404, error: 'Not Found', code: 'run_not_found', message: 'no run "no-such-run"' },
    'the same 404 from the route and the ledger',
  );
  const tooLarge = await app.inject(cases.find(([name]) => name === 'a body over BODY_LIMIT_BYTES')![1]);
  t.equal(tooLarge.json().error, 'Payload Too Large', 'the status text is the status’s own');
  t.match(tooLarge.json().message, /65536-byte limit \(BODY_LIMIT_BYTES/, 'the 413 names the limit and its setting');
  const plain = await app.inject(cases.find(([name]) => name === 'JSON sent as text/plain')![1]);
  t.match(plain.json().message, /content-type: application\/json \(got text\/plain\)/, 'the 415 says what to send');
  const wrongMethod = await app.inject({ method: 'POST', url: '/runs/some-run' });
  t.equal(wrongMethod.statusCode, 405);
  t.equal(wrongMethod.headers.allow, 'PUT, GET, HEAD, DELETE', 'Allow lists the methods of the path');
});

t.test('a gzip or deflate body is read as the JSON it holds', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const body = JSON.stringify({ plan: EXAMPLE_SCORE_REQUEST.groups[0]!.completions[0] });
  const plain = await app.inject({ method: 'POST', url: '/validate-plan', headers: { 'content-type': 'application/json' }, payload: body });
  for (const [encoding, payload] of [
    ['gzip', gzipSync(body)],
    ['deflate', deflateSync(body)],
  ] as const) {
    const res = await app.inject({
      method: 'POST',
      url: '/validate-plan',
      headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      payload,
    });
    t.equal(res.statusCode, 200, encoding);
    t.same({ ...res.json(), latency_ms: 0 }, { ...plain.json(), latency_ms: 0 }, `${encoding}: the same answer as uncompressed`);
  }
});

t.test('docs/operations.md carries the error table as src/contracts/errors.ts renders it, statuses included', async (t) => {
  const doc = await readFile(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  t.equal(withErrorTable(doc, renderErrorTable()), doc, 'run `npm run docs:errors`');
  for (const [code, row] of Object.entries(ERRORS)) t.match(doc, `| ${row.status} | \`${code}\``, `${code} is documented with status ${row.status}`);
});

t.test('the error handler answers every code with the status and Retry-After of its row', async (t) => {
  const app = Fastify();
  installErrorHandler(app, 1024, () => []);
  app.get('/fail/:code', async (req) => {
    throw new ServiceError((req.params as { code: Exclude<ErrorCode, 'internal'> }).code, 'failed on purpose');
  });
  t.teardown(() => app.close());
  for (const [code, row] of Object.entries(ERRORS)) {
    if (code === 'internal') continue;
    const res = await app.inject({ method: 'GET', url: `/fail/${code}` });
    t.equal(res.statusCode, row.status, `${code}: status`);
    t.match(res.json(), { statusCode: row.status, code, message: 'failed on purpose' }, `${code}: body`);
    t.equal(res.headers['retry-after'] !== undefined, row.retryable, `${code}: Retry-After only when retryable`);
  }
});
