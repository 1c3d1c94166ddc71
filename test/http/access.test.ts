import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { EXAMPLE_PLAN } from '../../src/contracts/examples.js';
import { tempStateDir, testApp } from '../support/app.js';

const READ = 'read-key-0123456789abcdef';
const SCORE = 'score-key-0123456789abcdef';
const ADMIN = 'admin-key-0123456789abcdef';
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const validate = { method: 'POST' as const, url: '/validate-plan', payload: { plan: EXAMPLE_PLAN } };

t.test('API keys with scopes: 401 without a valid key, 403 for the wrong scope, probes and docs open', async (t) => {
  const app = await testApp({ API_KEYS: `read:${READ},score:${SCORE}` });
  t.teardown(() => app.close());
  const none = await app.inject(validate);
  t.equal(none.statusCode, 401);
  t.equal(none.headers['www-authenticate'], 'Bearer');
  t.match(none.json(), { code: 'unauthorized', message: /Authorization: Bearer <key>/ });
  for (const authorization of [
    'Bearer not-a-key-at-all-0000',
    `Basic ${READ}`,
    `Bearer ${READ}x`,
    `Bearer ${READ.slice(0, -1)}`,
    'Bearer',
    `Bearer ${'k'.repeat(8000)}`,
  ]) {
    const res = await app.inject({ ...validate, headers: { authorization } });
    t.equal(res.statusCode, 401, `${authorization.slice(0, 30)} → 401`);
    t.notMatch(res.body, READ, 'the answer never repeats a key');
  }
  const readOnly = await app.inject({ ...validate, headers: bearer(READ) });
  t.equal(readOnly.statusCode, 403);
  t.match(readOnly.json(), { code: 'forbidden', message: /needs a key with scope score .*the key has read/ });
  t.equal((await app.inject({ method: 'GET', url: '/runs', headers: bearer(READ) })).statusCode, 200, 'read reads');
  t.equal((await app.inject({ ...validate, headers: bearer(SCORE) })).statusCode, 200, 'score computes');
  t.equal((await app.inject({ method: 'GET', url: '/runs', headers: bearer(SCORE) })).statusCode, 200, 'score includes read');
  const put = await app.inject({ method: 'PUT', url: '/runs/r1', headers: bearer(SCORE), payload: { t_warm: 3 } });
  t.equal(put.statusCode, 403, 'changing a run needs admin');
  for (const url of ['/health', '/ready', '/docs', '/docs/json', '/docs/static/swagger-ui.css']) {
    t.equal((await app.inject({ method: 'GET', url })).statusCode, 200, `${url} needs no key`);
  }
  t.equal((await app.inject({ method: 'GET', url: '/no-such-path' })).statusCode, 401, 'an unknown path needs a key too');
  t.equal((await app.inject({ method: 'GET', url: '/no-such-path', headers: bearer(READ) })).statusCode, 404);
});

t.test('API_KEYS_FILE: one scope:key per line, comments allowed, added to API_KEYS', async (t) => {
  const file = join(tempStateDir(), 'keys');
  writeFileSync(file, `# the trainer's key\nadmin:${ADMIN}\n\n  # another\n`);
  const app = await testApp({ API_KEYS: `read:${READ}`, API_KEYS_FILE: file });
  t.teardown(() => app.close());
  t.equal((await app.inject({ method: 'PUT', url: '/runs/r1', headers: bearer(ADMIN), payload: { t_warm: 3 } })).statusCode, 201);
  t.equal((await app.inject({ method: 'DELETE', url: '/runs/r1', headers: bearer(ADMIN) })).statusCode, 204);
  t.equal((await app.inject({ method: 'GET', url: '/runs', headers: bearer(READ) })).statusCode, 200);
});

t.test('rate limits: per key, 429 with Retry-After past RATE_LIMIT_MAX, probes exempt', async (t) => {
  const app = await testApp({ API_KEYS: `score:${SCORE},read:${READ}`, RATE_LIMIT_MAX: 3, RATE_LIMIT_WINDOW_MS: 60_000 });
  t.teardown(() => app.close());
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await app.inject({ method: 'GET', url: '/runs', headers: bearer(SCORE) })).statusCode);
  t.same(statuses, [200, 200, 200, 429]);
  const limited = await app.inject({ method: 'GET', url: '/runs', headers: bearer(SCORE) });
  t.equal(limited.statusCode, 429);
  t.ok(Number(limited.headers['retry-after']) > 0, `Retry-After ${limited.headers['retry-after']}`);
  t.match(limited.json(), { code: 'rate_limited', message: /over 3 requests per 60000 ms \(RATE_LIMIT_MAX, RATE_LIMIT_WINDOW_MS\)/ });
  t.equal((await app.inject({ method: 'GET', url: '/runs', headers: bearer(READ) })).statusCode, 200, 'another key has its own budget');
  for (let i = 0; i < 10; i++) t.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
});

t.test('requests without a valid key are limited per client address too: a 401 flood gets 429', async (t) => {
  const app = await testApp({ API_KEYS: `score:${SCORE}`, RATE_LIMIT_MAX: 3 });
  t.teardown(() => app.close());
  const from = (remoteAddress: string, url: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, remoteAddress, headers }).then((r) => r.statusCode);
  const flood = [];
  // No key, a wrong key, and a path that does not exist: one budget, the address's.
  flood.push(await from('10.0.0.1', '/runs'), await from('10.0.0.1', '/runs', { authorization: 'Bearer not-a-key-at-all-0000' }));
  flood.push(await from('10.0.0.1', '/no-such-path'), await from('10.0.0.1', '/runs'), await from('10.0.0.1', '/no-such-path'));
  t.same(flood, [401, 401, 401, 429, 429]);
  const limited = await app.inject({ method: 'GET', url: '/runs', remoteAddress: '10.0.0.1' });
  t.match(limited.json(), { code: 'rate_limited' });
  t.ok(Number(limited.headers['retry-after']) > 1, `Retry-After ${limited.headers['retry-after']}: when the window ends, not in a second`);
  t.equal(limited.headers['retry-after'], limited.headers['x-ratelimit-reset']);
  t.equal(await from('10.0.0.1', '/runs', bearer(SCORE)), 200, 'a valid key from the same address has its own budget');
  t.equal(await from('10.0.0.2', '/runs'), 401, 'another address has its own');
  t.equal(await from('10.0.0.1', '/health'), 200, 'probes are exempt');
});

t.test('without keys the limit is per client address', async (t) => {
  const app = await testApp({ RATE_LIMIT_MAX: 2 });
  t.teardown(() => app.close());
  const from = (remoteAddress: string) => app.inject({ method: 'GET', url: '/runs', remoteAddress });
  t.same([(await from('10.0.0.1')).statusCode, (await from('10.0.0.1')).statusCode, (await from('10.0.0.1')).statusCode], [200, 200, 429]);
  t.equal((await from('10.0.0.2')).statusCode, 200);
});

t.test('CORS for the origins of CORS_ORIGINS only; a preflight needs no key; none by default', async (t) => {
  const app = await testApp({ API_KEYS: `score:${SCORE}`, CORS_ORIGINS: 'https://tutor.example, https://lab.example' });
  t.teardown(() => app.close());
  const preflight = (origin: string) =>
    app.inject({
      method: 'OPTIONS',
      url: '/score-plan',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
  const ok = await preflight('https://lab.example');
  t.equal(ok.statusCode, 204);
  t.equal(ok.headers['access-control-allow-origin'], 'https://lab.example');
  t.match(String(ok.headers['access-control-allow-headers']), /authorization/);
  t.equal((await preflight('https://evil.example')).headers['access-control-allow-origin'], undefined);
  const call = await app.inject({ ...validate, headers: { ...bearer(SCORE), origin: 'https://tutor.example' } });
  t.equal(call.statusCode, 200);
  t.equal(call.headers['access-control-allow-origin'], 'https://tutor.example');
  // An OPTIONS request that is not a preflight gets no plain-text 400 from the CORS plugin.
  const bare = await app.inject({ method: 'OPTIONS', url: '/score-plan', headers: { origin: 'https://lab.example' } });
  t.equal(bare.statusCode, 204);
  t.notMatch(bare.body, /Invalid Preflight/);

  const closed = await testApp();
  t.teardown(() => closed.close());
  const none = await closed.inject({
    method: 'OPTIONS',
    url: '/score-plan',
    headers: { origin: 'https://lab.example', 'access-control-request-method': 'POST' },
  });
  t.equal(none.statusCode, 405);
  t.equal(none.headers['access-control-allow-origin'], undefined);
});

t.test('security headers on every answer; the CSP leaves plain-HTTP deployments alone', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'GET', url: '/health' });
  t.equal(res.headers['x-content-type-options'], 'nosniff');
  t.match(String(res.headers['content-security-policy']), /default-src 'self'/);
  t.notMatch(String(res.headers['content-security-policy']), /upgrade-insecure-requests/);
});

t.test('Strict-Transport-Security over HTTPS only: as a TRUST_PROXY proxy says it was reached, never over plain HTTP', async (t) => {
  const app = await testApp({ TRUST_PROXY: '10.1.0.0/16' });
  t.teardown(() => app.close());
  const hsts = async (remoteAddress: string, headers: Record<string, string> = {}) =>
    (await app.inject({ method: 'GET', url: '/health', remoteAddress, headers })).headers['strict-transport-security'];
  t.equal(await hsts('10.1.2.3'), undefined, 'plain HTTP');
  t.equal(await hsts('10.1.2.3', { 'x-forwarded-proto': 'https' }), 'max-age=31536000; includeSubDomains', 'HTTPS at the proxy');
  t.equal(await hsts('10.1.2.3', { 'x-forwarded-proto': 'http' }), undefined, 'plain HTTP at the proxy');
  t.equal(await hsts('192.0.2.1', { 'x-forwarded-proto': 'https' }), undefined, "an untrusted peer's X-Forwarded-Proto is ignored");
});

t.test('behind a proxy named in TRUST_PROXY the limit is per forwarded client address; otherwise X-Forwarded-For is ignored', async (t) => {
  const behind = await testApp({ RATE_LIMIT_MAX: 2, TRUST_PROXY: '10.1.0.0/16, 127.0.0.1' });
  t.teardown(() => behind.close());
  const via = (app: typeof behind, proxy: string, client: string) =>
    app.inject({ method: 'GET', url: '/runs', remoteAddress: proxy, headers: { 'x-forwarded-for': client } });
  t.same([(await via(behind, '10.1.2.3', '203.0.113.7')).statusCode, (await via(behind, '10.1.9.9', '203.0.113.7')).statusCode], [200, 200]);
  t.equal((await via(behind, '10.1.2.3', '203.0.113.7')).statusCode, 429, 'one client through two proxy addresses shares one budget');
  t.equal((await via(behind, '10.1.2.3', '203.0.113.8')).statusCode, 200, 'another client behind the same proxy has its own');
  t.equal((await via(behind, '192.0.2.1', '203.0.113.8')).statusCode, 200, 'an untrusted peer is counted by its own address');
  t.equal((await via(behind, '192.0.2.1', '203.0.113.9')).statusCode, 200);
  t.equal((await via(behind, '192.0.2.1', '203.0.113.10')).statusCode, 429, 'its forged X-Forwarded-For does not buy a new budget');

  const direct = await testApp({ RATE_LIMIT_MAX: 2 });
  t.teardown(() => direct.close());
  const statuses = [];
  for (const client of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) statuses.push((await via(direct, '10.1.2.3', client)).statusCode);
  t.same(statuses, [200, 200, 429], 'unset: the connection address counts');
});
