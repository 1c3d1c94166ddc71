// Fuzzing the access and transport layer through its headers: Authorization (src/http/access.ts),
// Content-Encoding and Content-Type (src/http/transport.ts), Origin (src/http/protection.ts). Every answer is
// the one the header implies, never a 5xx, every error body carries a documented code, and no answer repeats
// an API key. Each property counts the cases it ran and reports them with t.comment.
import { connect } from 'node:net';
import { request } from 'node:http';
import { createDeflate, createGzip, deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import fc from 'fast-check';
import t, { type Test } from 'tap';
import { ERROR_CODES, type ErrorCode } from '../../src/contracts/errors.js';
import { EXAMPLE_PLAN, EXAMPLE_SCORE_REQUEST } from '../../src/contracts/examples.js';
import { testApp } from '../support/app.js';

// Mixed case, so that a case flip is a different key; no key is a prefix or part of another.
const KEYS = { read: 'rEaD-7f3c9a1e5b2d4c6f', score: 'sCoRe-0a9b8c7d6e5f4a3b', admin: 'AdMiN-1b2c3d4e5f6a7b8c' } as const;
type Scope = keyof typeof KEYS;
const RANK: Record<Scope, number> = { read: 0, score: 1, admin: 2 };
const ALL_KEYS = Object.values(KEYS);
const ORIGIN = 'https://tutor.example';
const BODY_LIMIT = 16 * 1024 * 1024;
const JSON_CT = { 'content-type': 'application/json' };
const SCORE_BODY = JSON.stringify(EXAMPLE_SCORE_REQUEST);
const PLAN_BODY = JSON.stringify({ plan: EXAMPLE_PLAN });

const keyed = await testApp({
  API_KEYS: `read:${KEYS.read},score:${KEYS.score},admin:${KEYS.admin}`,
  CORS_ORIGINS: ORIGIN,
  RATE_LIMIT_MAX: 1_000_000,
  BODY_LIMIT_BYTES: BODY_LIMIT,
});
t.teardown(() => keyed.close());
const open = await testApp({ BODY_LIMIT_BYTES: BODY_LIMIT });
t.teardown(() => open.close());

/** Throws (which fails the property, with the message) unless `ok`. */
function check(ok: boolean, message: () => string): asserts ok {
  if (!ok) throw new Error(message());
}

const show = (res: LightMyRequestResponse) => `${res.statusCode} ${res.body.slice(0, 300)}`;

interface Expected {
  status: number | readonly number[];
  code?: ErrorCode | readonly ErrorCode[];
}

/** Never a 5xx; the expected status; an error body of the documented shape and code; WWW-Authenticate on 401. */
function expectAnswer(res: LightMyRequestResponse, expected: Expected, what: string): void {
  const statuses = [expected.status].flat();
  check(res.statusCode < 500, () => `${what}: a 5xx: ${show(res)}`);
  check(statuses.includes(res.statusCode), () => `${what}: expected ${statuses.join('|')}, got ${show(res)}`);
  if (res.statusCode < 400) return;
  let body: { statusCode?: unknown; error?: unknown; code?: unknown; message?: unknown };
  try {
    body = res.json();
  } catch {
    throw new Error(`${what}: an error body that is not JSON: ${show(res)}`);
  }
  check(body.statusCode === res.statusCode, () => `${what}: body.statusCode ${String(body.statusCode)} ≠ ${res.statusCode}`);
  check(typeof body.error === 'string' && typeof body.message === 'string', () => `${what}: error and message must be strings: ${show(res)}`);
  check((ERROR_CODES as readonly unknown[]).includes(body.code), () => `${what}: undocumented code ${String(body.code)}`);
  if (expected.code !== undefined) {
    const codes: readonly unknown[] = [expected.code].flat();
    check(codes.includes(body.code), () => `${what}: expected code ${codes.join('|')}, got ${show(res)}`);
  }
  if (res.statusCode === 401) check(res.headers['www-authenticate'] === 'Bearer', () => `${what}: 401 without WWW-Authenticate: Bearer`);
}

/** No configured key, and not the presented secret, is repeated in the body or the headers. */
function expectNoKeyEcho(res: LightMyRequestResponse, presented: string | undefined, what: string): void {
  const headers = JSON.stringify(res.headers);
  for (const key of ALL_KEYS) check(!res.body.includes(key) && !headers.includes(key), () => `${what}: the answer repeats a key`);
  // Short strings can occur in any message by chance; a key is at least 16 characters (parseKeys).
  if (presented !== undefined && presented.length >= 16) check(!res.body.includes(presented), () => `${what}: the answer repeats the presented key`);
}

class Tally {
  readonly byKind = new Map<string, number>();
  total = 0;
  add(kind: string): void {
    this.total++;
    this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + 1);
  }
  report(t: Test, name: string, numRuns: number): void {
    const kinds = [...this.byKind].map(([k, n]) => `${k} ${n}`).join(', ');
    t.comment(`${name}: ${this.total} cases (numRuns ${numRuns}): ${kinds}`);
    t.equal(this.total, numRuns, `${name}: every case ran`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Authorization

interface Route {
  name: string;
  needs: Scope;
  request: InjectOptions;
  ok: readonly number[];
}
const ROUTES: Route[] = [
  { name: 'POST /score-plan', needs: 'score', request: { method: 'POST', url: '/score-plan', headers: JSON_CT, payload: SCORE_BODY }, ok: [200] },
  { name: 'GET /runs', needs: 'read', request: { method: 'GET', url: '/runs' }, ok: [200] },
  { name: 'PUT /runs/:id', needs: 'admin', request: { method: 'PUT', url: '/runs/fuzz-headers', headers: JSON_CT, payload: '{"t_warm":3}' }, ok: [200, 201] },
];

/** A generated Authorization header: `key` is the scope it must be accepted as, or null when it must be refused. */
interface AuthCase {
  kind: string;
  header: string | undefined;
  key: Scope | null;
  /** The secret the header carries, which no answer may repeat. */
  presented?: string;
}

const scope = fc.constantFrom<Scope>('read', 'score', 'admin');
const scheme = fc.constantFrom('Bearer', 'bearer', 'BEARER', 'bEaReR');
/** Whitespace as HTTP defines it (SP, HTAB): what Node leaves inside a header value. */
const ows = (min: number, max: number) => fc.array(fc.constantFrom(' ', '\t'), { minLength: min, maxLength: max }).map((a) => a.join(''));
/** One code point that is not whitespace (in JS's sense, the widest), any plane, controls and lone surrogates included. */
const nonSpaceChar = fc
  .oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  )
  .filter((c) => !/\s/u.test(c));
const anyUnit = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 1 }),
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\u0000', '\t', '\n', '\r', '\u00a0', '\u2028', '\ufeff', '\u200b', '\ud800', '"', '\\', ','),
);
const anyString = (maxLength: number) => fc.string({ unit: anyUnit, maxLength });
const noKeyIn = (s: string) => !ALL_KEYS.some((k) => s.includes(k));

const validAuth: fc.Arbitrary<AuthCase> = fc
  .tuple(scope, scheme, ows(1, 4), ows(0, 3))
  .map(([s, sch, sep, trail]) => ({ kind: 'valid key, any scheme case and spacing', header: `${sch}${sep}${KEYS[s]}${trail}`, key: s, presented: KEYS[s] }));
const trailingChars: fc.Arbitrary<AuthCase> = fc
  .tuple(scope, ows(0, 2), fc.array(nonSpaceChar, { minLength: 1, maxLength: 4 }), anyString(6))
  .map(([s, gap, chars, tail]) => ({
    kind: 'valid key + trailing characters',
    header: `Bearer ${KEYS[s]}${gap}${chars.join('')}${tail}`,
    key: null,
    presented: KEYS[s],
  }));
const leadingChars: fc.Arbitrary<AuthCase> = fc
  .tuple(scope, fc.array(nonSpaceChar, { minLength: 1, maxLength: 4 }), ows(0, 2))
  .map(([s, chars, gap]) => ({ kind: 'characters before the scheme', header: `${chars.join('')}${gap}Bearer ${KEYS[s]}`, key: null, presented: KEYS[s] }));
const wrongScheme: fc.Arbitrary<AuthCase> = fc
  .tuple(
    scope,
    fc.oneof(
      fc.constantFrom('Basic', 'Token', 'Bearer:', 'Bearerx', 'Bear', 'Beare r', 'Digest', 'ApiKey', 'Bearer,', 'B\u0435arer' /* Cyrillic e */),
      fc.stringMatching(/^[A-Za-z]{1,10}$/),
    ),
    ows(0, 2),
  )
  .filter(([, sch]) => sch.toLowerCase() !== 'bearer')
  .map(([s, sch, sep]) => ({ kind: 'another scheme, or none', header: `${sch}${sep}${KEYS[s]}`, key: null, presented: KEYS[s] }));
/** A real key with one character substituted, inserted, deleted or its case flipped. */
const oneCharOff: fc.Arbitrary<AuthCase> = fc
  .tuple(scope, fc.constantFrom('substitute', 'insert', 'delete', 'flip case'), fc.nat(), nonSpaceChar)
  .map(([s, op, at, c]) => {
    const key = KEYS[s];
    const i = at % key.length;
    let mutated: string;
    if (op === 'substitute') mutated = key.slice(0, i) + (c === key[i] ? '#' : c) + key.slice(i + 1);
    else if (op === 'insert') mutated = key.slice(0, i) + c + key.slice(i);
    else if (op === 'delete') mutated = key.slice(0, i) + key.slice(i + 1);
    else {
      // The i-th letter (the keys have letters in every part), its case flipped.
      const letters = [...key].flatMap((ch, j) => (/[a-z]/i.test(ch) ? [j] : []));
      const j = letters[at % letters.length]!;
      const ch = key[j]!;
      mutated = key.slice(0, j) + (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase()) + key.slice(j + 1);
    }
    return { kind: `key one character off (${op})`, header: `Bearer ${mutated}`, key: null, presented: mutated };
  });
const noKey: fc.Arbitrary<AuthCase> = fc.oneof(
  fc.constant<AuthCase>({ kind: 'no Authorization', header: undefined, key: null }),
  fc.tuple(scheme, ows(0, 3)).map(([sch, sp]) => ({ kind: 'scheme without a key', header: `${sch}${sp}`, key: null })),
);

t.test('Authorization: valid keys of each scope, near misses and wrong schemes get exactly the status they imply', async (t) => {
  const numRuns = 600;
  const tally = new Tally();
  await fc.assert(
    fc.asyncProperty(fc.oneof(validAuth, trailingChars, leadingChars, wrongScheme, oneCharOff, noKey), fc.constantFrom(...ROUTES), async (c, route) => {
      tally.add(c.kind);
      const res = await keyed.inject({
        ...route.request,
        headers: { ...route.request.headers, ...(c.header === undefined ? {} : { authorization: c.header }) },
      });
      const what = `${route.name} with ${JSON.stringify(c.header)}`;
      if (c.key === null) expectAnswer(res, { status: 401, code: 'unauthorized' }, what);
      else if (RANK[c.key] < RANK[route.needs]) expectAnswer(res, { status: 403, code: 'forbidden' }, what);
      else expectAnswer(res, { status: route.ok }, what);
      expectNoKeyEcho(res, c.presented, what);
    }),
    { numRuns },
  );
  tally.report(t, 'Authorization near misses', numRuns);
});

t.test('Authorization: random, unicode and control-character values are refused with 401, never a 5xx', async (t) => {
  const numRuns = 500;
  const tally = new Tally();
  const header = fc.oneof(
    anyString(40).map((h) => ({ kind: 'random string', h })),
    anyString(40).map((h) => ({ kind: '"Bearer " + random', h: `Bearer ${h}` })),
    fc.tuple(scope, fc.nat(), nonSpaceChar, anyString(3)).map(([s, at, c, more]) => {
      // Strictly inside the key: the key is broken whatever the characters are.
      const key = KEYS[s];
      const i = 1 + (at % (key.length - 1));
      return { kind: 'unicode/control characters inside a key', h: `Bearer ${key.slice(0, i)}${c}${more}${key.slice(i)}` };
    }),
    fc.uint8Array({ minLength: 1, maxLength: 60 }).map((b) => ({ kind: 'latin1 bytes', h: Buffer.from(b).toString('latin1') })),
  );
  await fc.assert(
    fc.asyncProperty(
      header.filter(({ h }) => noKeyIn(h)),
      fc.constantFrom(...ROUTES),
      async ({ kind, h }, route) => {
        tally.add(kind);
        const res = await keyed.inject({ ...route.request, headers: { ...route.request.headers, authorization: h } });
        const what = `${route.name} with ${JSON.stringify(h)}`;
        expectAnswer(res, { status: 401, code: 'unauthorized' }, what);
        expectNoKeyEcho(res, h.replace(/^\s*bearer\s*/i, ''), what);
      },
    ),
    { numRuns },
  );
  tally.report(t, 'Authorization random values', numRuns);
});

t.test('Authorization: values of 10 KB to 1 MB (inject has no header limit) are answered quickly and correctly', async (t) => {
  const numRuns = 40;
  const tally = new Tally();
  // Descriptions, not the values themselves, so that a counterexample prints in a line.
  const FORMS: Record<string, (n: number, s: Scope, ch: string) => Omit<AuthCase, 'kind'>> = {
    'Bearer + long token': (n, _s, ch) => ({ header: `Bearer ${ch.repeat(n)}`, key: null, presented: ch.repeat(n) }),
    'valid key + long tail': (n, s, ch) => ({ header: `Bearer ${KEYS[s]}${ch.repeat(n)}`, key: null }),
    'long run of spaces, then the key': (n, s) => ({ header: `Bearer${' '.repeat(n)}${KEYS[s]}`, key: s, presented: KEYS[s] }),
    'valid key, then long spaces': (n, s) => ({ header: `Bearer ${KEYS[s]}${' \t'.repeat(n >> 1)}`, key: s, presented: KEYS[s] }),
    'spaces, the key, a second word': (n, s) => ({ header: `Bearer ${' '.repeat(n)}${KEYS[s]} x`, key: null }),
    '"Bearer " repeated': (n) => ({ header: 'Bearer '.repeat(Math.ceil(n / 7)), key: null }),
    '"a " repeated': (n) => ({ header: `Bearer ${'a '.repeat(n >> 1)}`, key: null }),
  };
  const long = fc.record({
    form: fc.constantFrom(...Object.keys(FORMS)),
    n: fc.integer({ min: 10 * 1024, max: 1 << 20 }),
    s: scope,
    ch: fc.constantFrom('a', 'A', '0', '~', 'é', '\u0000'),
  });
  await fc.assert(
    fc.asyncProperty(long, fc.constantFrom(...ROUTES), async ({ form, n, s, ch }, route) => {
      tally.add(form);
      const c = FORMS[form]!(n, s, ch);
      const started = performance.now();
      const res = await keyed.inject({ ...route.request, headers: { ...route.request.headers, authorization: c.header! } });
      const ms = performance.now() - started;
      const what = `${route.name} with ${form} (${c.header!.length} chars)`;
      // No regular-expression blow-up on hostile lengths: a 1 MB value is read in milliseconds.
      check(ms < 2000, () => `${what}: took ${ms.toFixed(0)} ms`);
      if (c.key === null) expectAnswer(res, { status: 401, code: 'unauthorized' }, what);
      else if (RANK[c.key] < RANK[route.needs]) expectAnswer(res, { status: 403, code: 'forbidden' }, what);
      else expectAnswer(res, { status: route.ok }, what);
      expectNoKeyEcho(res, c.presented, what);
    }),
    { numRuns },
  );
  tally.report(t, 'Authorization long values', numRuns);
});

// ---------------------------------------------------------------------------------------------------------
// A real listening server: what inject cannot send (headers past Node's 16 KiB limit, raw bytes).

await keyed.listen({ port: 0, host: '127.0.0.1' });
const { port } = keyed.server.address() as { port: number };

/** Writes `data` on a fresh connection and collects what comes back until the server closes it (or 5 s pass). */
function overTheWire(data: Buffer): Promise<{ answer: string; closed: boolean }> {
  return new Promise((resolve) => {
    // Written, not ended: a client's FIN makes Node's server abandon a request whose answer is not written yet
    // (http's allowHalfOpen is off), and every request here says `Connection: close` anyway.
    const socket = connect(port, '127.0.0.1', () => socket.write(data));
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ answer, closed: false });
    }, 5000);
    socket.on('data', (d) => {
      answer += d.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answer, closed: true });
    });
  });
}
const statusesOf = (answer: string) => [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
const rawRequest = (headerLines: Buffer[]) =>
  Buffer.concat([
    Buffer.from('GET /runs HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n'),
    ...headerLines.flatMap((l) => [l, Buffer.from('\r\n')]),
    Buffer.from('\r\n'),
  ]);

async function stillHealthy(): Promise<boolean> {
  const { answer } = await overTheWire(Buffer.from('GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'));
  return answer.startsWith('HTTP/1.1 200 ');
}

t.test('over a socket: headers past 16 KiB get 431 (or a closed connection), raw bytes 400/401, and /health answers after each', async (t) => {
  const numRuns = 60;
  const tally = new Tally();
  // Descriptions, not the bytes, so that a counterexample prints in a line; the request is built in the property.
  const big = fc.record({
    n: fc.oneof(fc.integer({ min: 1024, max: 15_000 }), fc.integer({ min: 15_001, max: 16_999 }), fc.integer({ min: 17_000, max: 256 * 1024 })),
    where: fc.constantFrom('Authorization', 'X-Padding', 'Cookie'),
    ch: fc.constantFrom('a', 'Z', '9', '-'),
  });
  const rawBytes = fc.record({ bytes: fc.uint8Array({ minLength: 1, maxLength: 200 }), afterKeyPrefix: fc.boolean() });
  const build = (c: { n: number; where: string; ch: string } | { bytes: Uint8Array; afterKeyPrefix: boolean }) => {
    if ('bytes' in c) {
      const value = Buffer.concat([Buffer.from('Authorization: Bearer '), Buffer.from(c.afterKeyPrefix ? KEYS.read.slice(0, 8) : ''), c.bytes]);
      // A byte Node's parser refuses (a control, a bare CR or LF) → 400; anything else is a wrong key → 401.
      return { kind: 'raw bytes in the value', data: rawRequest([value]), expected: [400, 401] };
    }
    const padding = c.ch.repeat(c.n);
    const lines =
      c.where === 'Authorization'
        ? [`Authorization: Bearer ${padding}`]
        : [`Authorization: Bearer ${KEYS.read}`, `${c.where}: ${c.where === 'Cookie' ? 'c=' : ''}${padding}`];
    // Node counts the whole header section against its limit; around the limit either answer is right.
    const normal = c.where === 'Authorization' ? 401 : 200;
    const expected = c.n <= 15_000 ? [normal] : c.n >= 17_000 ? [431] : [normal, 431];
    const kind = c.n <= 15_000 ? 'under 15 KB' : c.n >= 17_000 ? 'over 17 KB' : 'around 16 KiB';
    return { kind, data: rawRequest(lines.map((l) => Buffer.from(l))), expected };
  };
  await fc.assert(
    fc.asyncProperty(fc.oneof(big, rawBytes), async (c) => {
      const { kind, data, expected } = build(c);
      tally.add(kind);
      const { answer, closed } = await overTheWire(data);
      const statuses = statusesOf(answer);
      check(closed, () => `${kind}: the connection was still open after 5 s; got ${JSON.stringify(answer.slice(0, 200))}`);
      check(
        statuses.every((s) => s < 500),
        () => `${kind}: a 5xx: ${JSON.stringify(answer.slice(0, 300))}`,
      );
      // 431 may come as a closed connection without an answer; everything else answers.
      check(
        statuses.length === 0 ? expected.includes(431) : expected.includes(statuses[0]!),
        () => `${kind}: expected ${expected.join('|')}, got ${JSON.stringify(answer.slice(0, 300))}`,
      );
      // Node's parser refuses these before Fastify sees them; the answer still has the documented body.
      const code = { 400: 'invalid_http', 431: 'headers_too_large' }[statuses[0] ?? 0];
      check(code === undefined || answer.includes(`"code":"${code}"`), () => `${kind}: no code ${code} in ${JSON.stringify(answer.slice(0, 300))}`);
      check(!ALL_KEYS.some((k) => answer.includes(k)), () => `${kind}: the answer repeats a key`);
      check(await stillHealthy(), () => `${kind}: /health does not answer 200 afterwards`);
    }),
    { numRuns },
  );
  tally.report(t, 'Oversized and raw headers over a socket', numRuns);
});

// ---------------------------------------------------------------------------------------------------------
// Content-Encoding

/** What a JSON body decoded from `payload` must get on POST /validate-plan, worked out with zlib itself. */
function expectedForEncoded(encoding: string, payload: Buffer): Expected & { why: string } {
  let decoded: Buffer;
  try {
    decoded = encoding === 'gzip' ? gunzipSync(payload) : encoding === 'deflate' ? inflateSync(payload) : payload;
  } catch {
    return { why: 'does not decompress', status: 400, code: 'invalid_encoding' };
  }
  if (decoded.length > BODY_LIMIT) return { why: 'over the limit once decompressed', status: 413, code: 'body_too_large' };
  const text = decoded.toString('utf8');
  // An empty body is no body (then the schema wants an object).
  if (text === '') return { why: 'empty once decompressed', status: 400, code: 'invalid_request' };
  try {
    JSON.parse(text.replace(/^\ufeff/, ''));
  } catch {
    return { why: 'not JSON once decompressed', status: 400, code: 'invalid_json' };
  }
  return text === PLAN_BODY ? { why: 'the valid body', status: 200 } : { why: 'JSON of another shape', status: 400, code: 'invalid_request' };
}

const compress = (encoding: 'gzip' | 'deflate', data: Buffer | string) => (encoding === 'gzip' ? gzipSync(data) : deflateSync(data));
const postEncoded = (encoding: string | undefined, payload: Buffer | string, url = '/validate-plan') =>
  open.inject({ method: 'POST', url, headers: { ...JSON_CT, ...(encoding === undefined ? {} : { 'content-encoding': encoding }) }, payload });

t.test('Content-Encoding: random bytes labelled gzip or deflate are 400 invalid_encoding (or what they decode to), never a 5xx', async (t) => {
  const numRuns = 400;
  const tally = new Tally();
  const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0x03]);
  const ZLIB_HEADER = Buffer.from([0x78, 0x9c]);
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 2048 }).map((b) => ({ kind: 'random bytes', b: Buffer.from(b) })),
    fc.uint8Array({ maxLength: 2048 }).map((b) => ({ kind: 'gzip header + random', b: Buffer.concat([GZIP_HEADER, b]) })),
    fc.uint8Array({ maxLength: 2048 }).map((b) => ({ kind: 'zlib header + random', b: Buffer.concat([ZLIB_HEADER, b]) })),
  );
  await fc.assert(
    fc.asyncProperty(bytes, fc.constantFrom('gzip', 'deflate'), async ({ kind, b }, encoding) => {
      tally.add(`${kind} as ${encoding}`);
      const expected = expectedForEncoded(encoding, b);
      expectAnswer(await postEncoded(encoding, b), expected, `${kind} (${b.length} bytes) as ${encoding}, which ${expected.why}`);
    }),
    { numRuns },
  );
  tally.report(t, 'Random bytes labelled gzip/deflate', numRuns);
});

t.test('Content-Encoding: valid, truncated, corrupted, doubled and multi-member streams get what they decode to', async (t) => {
  const numRuns = 400;
  const tally = new Tally();
  const text = fc.oneof(
    fc.constant({ what: 'the valid body', s: PLAN_BODY }),
    fc.integer({ min: 1, max: PLAN_BODY.length - 1 }).map((k) => ({ what: 'the valid body cut short (invalid JSON)', s: PLAN_BODY.slice(0, k) })),
    anyString(80).map((s) => ({ what: 'random text', s })),
    fc.constantFrom('1', 'null', '[]', '"x"', '{}', '{"completion":1}').map((s) => ({ what: 'JSON of another shape', s })),
  );
  const mangle = fc.oneof(
    fc.constant({ how: 'as is' as const }),
    fc.nat().map((at) => ({ how: 'truncated' as const, at })),
    fc.constant({ how: 'compressed twice' as const }),
    fc.nat().map((at) => ({ how: 'split into two members' as const, at })),
    fc.uint8Array({ minLength: 1, maxLength: 16 }).map((bytes) => ({ how: 'trailing bytes' as const, bytes })),
    fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })).map(([at, xor]) => ({ how: 'one byte flipped' as const, at, xor })),
  );
  await fc.assert(
    fc.asyncProperty(text, mangle, fc.constantFrom('gzip' as const, 'deflate' as const), async ({ what, s }, m, encoding) => {
      let payload = compress(encoding, s);
      let independent: Expected | undefined;
      switch (m.how) {
        case 'as is':
          if (s === PLAN_BODY) independent = { status: 200 };
          break;
        case 'truncated':
          // A compressed stream cut anywhere lacks at least its checksum.
          payload = payload.subarray(0, m.at % payload.length);
          independent = { status: 400, code: 'invalid_encoding' };
          break;
        case 'compressed twice':
          // One layer is undone; the other is binary, not JSON.
          payload = compress(encoding, payload);
          independent = { status: 400, code: 'invalid_json' };
          break;
        case 'split into two members':
          // gzip allows several members one after another (RFC 1952); deflate has no such thing.
          if (encoding === 'gzip') {
            const cut = m.at % (s.length + 1);
            payload = Buffer.concat([gzipSync(s.slice(0, cut)), gzipSync(s.slice(cut))]);
            if (s === PLAN_BODY) independent = { status: 200 };
          }
          break;
        case 'trailing bytes':
          payload = Buffer.concat([payload, m.bytes]);
          break;
        case 'one byte flipped': {
          payload = Buffer.from(payload);
          const i = m.at % payload.length;
          payload[i] = payload[i]! ^ m.xor;
          break;
        }
      }
      const expected = expectedForEncoded(encoding, payload);
      tally.add(`${m.how}`);
      const res = await postEncoded(encoding, payload);
      const label = `${what} ${JSON.stringify(s.slice(0, 60))}, ${encoding}, ${m.how}`;
      expectAnswer(res, expected, `${label} (zlib: ${expected.why})`);
      if (independent) expectAnswer(res, independent, label);
    }),
    { numRuns },
  );
  tally.report(t, 'Mangled gzip/deflate streams', numRuns);
});

t.test(
  'Content-Encoding: gzip (x-gzip) and deflate in any case are decompressed, identity is none; any other coding is 415 unsupported_encoding',
  async (t) => {
    const numRuns = 300;
    const tally = new Tally();
    const label = fc.oneof(
      fc.constantFrom('gzip', 'deflate', ''),
      // Content codings are case-insensitive, and x-gzip is gzip (RFC 9110 §8.4.1).
      fc.constantFrom('GZIP', 'Gzip', 'gZip', 'DEFLATE', 'Deflate', 'X-Gzip', 'IDENTITY'),
      fc.constantFrom('gzip, gzip', 'gzip,gzip', 'gzip, deflate', 'deflate, gzip', 'gzip, identity', 'identity, gzip'),
      fc.constantFrom('br', 'zstd', 'compress', 'x-gzip', 'x-compress', 'identity', '*', 'gzip;q=1', 'chunked', 'aes128gcm', 'exi', 'pack200-gzip'),
      fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/),
      anyString(20).filter((s) => s.trim() === s && s !== ''),
    );
    await fc.assert(
      fc.asyncProperty(label, fc.constantFrom('plain', 'gzip', 'deflate'), async (encoding, bodyAs) => {
        const payload = bodyAs === 'plain' ? Buffer.from(PLAN_BODY) : compress(bodyAs, PLAN_BODY);
        const lower = encoding.toLowerCase();
        const effective = lower === 'x-gzip' ? 'gzip' : lower === 'identity' ? '' : lower;
        const supported = effective === 'gzip' || effective === 'deflate' || effective === '';
        tally.add(supported ? `supported (${encoding || 'none'})` : 'unsupported');
        const res = await postEncoded(encoding, payload);
        const what = `content-encoding ${JSON.stringify(encoding)}, body ${bodyAs}`;
        if (supported) {
          const expected = expectedForEncoded(effective, payload);
          expectAnswer(res, expected, `${what} (zlib: ${expected.why})`);
          if (effective === bodyAs || (effective === '' && bodyAs === 'plain')) check(res.statusCode === 200, () => `${what}: ${show(res)}`);
        } else {
          expectAnswer(res, { status: 415, code: 'unsupported_encoding' }, what);
        }
      }),
      { numRuns },
    );
    tally.report(t, 'Content-Encoding labels', numRuns);
  },
);

/** `mib` MiB of `fill`, compressed as one stream, written 1 MiB at a time (never the whole in memory). */
async function oneStream(encoding: 'gzip' | 'deflate', fill: number, mib: number): Promise<Buffer> {
  const z = encoding === 'gzip' ? createGzip({ level: 9 }) : createDeflate({ level: 9 });
  const out: Buffer[] = [];
  z.on('data', (d: Buffer) => out.push(d));
  const ended = new Promise((resolve) => z.on('end', resolve));
  const chunk = Buffer.alloc(1 << 20, fill);
  for (let i = 0; i < mib; i++) if (!z.write(chunk)) await new Promise((resolve) => z.once('drain', resolve));
  z.end();
  await ended;
  return Buffer.concat(out);
}

t.test('Content-Encoding: zip bombs stop at BODY_LIMIT_BYTES with 413 body_too_large, fast and in bounded memory', async (t) => {
  const numRuns = 40;
  const tally = new Tally();
  const built = performance.now();
  const member = (fill: number) => gzipSync(Buffer.alloc(1 << 20, fill), { level: 9 });
  const spaceMember = member(0x20);
  const multi = (m: Buffer, mib: number) => Buffer.concat(Array.from({ length: mib }, () => m));
  const bombs = {
    'gzip, one stream, 64 MiB of zeros': { encoding: 'gzip', payload: await oneStream('gzip', 0, 64) },
    'deflate, one stream, 64 MiB of [': { encoding: 'deflate', payload: await oneStream('deflate', 0x5b, 64) },
    'gzip, 200 members, 200 MiB of spaces': { encoding: 'gzip', payload: multi(spaceMember, 200) },
    'gzip, 128 members, 128 MiB of [': { encoding: 'gzip', payload: multi(member(0x5b), 128) },
  } as const;
  const sizes = Object.entries(bombs)
    .map(([name, b]) => `${name}: ${(b.payload.length / 1024).toFixed(0)} KiB`)
    .join('; ');
  t.comment(`bombs built in ${(performance.now() - built).toFixed(0)} ms (${sizes})`);
  const spaces = bombs['gzip, 200 members, 200 MiB of spaces'].payload;
  const spacesTwice = gzipSync(spaces);
  const posts = ['/validate-plan', '/score-plan', '/openrlhf/reward', '/trace-knowledge/fit', '/evaluate-text/corpus'];

  // Cases are descriptions (a bomb's name, a cut point), so that a counterexample prints in a line.
  interface Case {
    kind: string;
    encoding: string;
    payload: () => Buffer;
    url: string;
    method?: 'PUT';
    app?: 'keyed';
    /** Where a truncated bomb is cut, in bytes. */
    cut?: number;
    expected: Expected;
  }
  const whole = fc.tuple(fc.constantFrom(...(Object.keys(bombs) as (keyof typeof bombs)[])), fc.constantFrom(...posts)).map(
    ([name, url]): Case => ({
      kind: name,
      encoding: bombs[name].encoding,
      payload: () => bombs[name].payload,
      url,
      expected: { status: 413, code: 'body_too_large' },
    }),
  );
  const truncated = fc.nat(spaces.length - 1).map((k): Case => {
    // Each member is 1 MiB decompressed: past 16 of them the limit is crossed before the cut is noticed.
    const members = Math.floor(k / spaceMember.length);
    const expected: Expected =
      members >= 17
        ? { status: 413, code: 'body_too_large' }
        : members <= 15
          ? // Cut between two members: whole members of spaces, which is not JSON; cut before any: nothing to decompress.
            { status: 400, code: k > 0 && k % spaceMember.length === 0 ? 'invalid_json' : 'invalid_encoding' }
          : { status: [400, 413], code: ['invalid_json', 'invalid_encoding', 'body_too_large'] };
    return { kind: 'bomb of spaces truncated', encoding: 'gzip', payload: () => spaces.subarray(0, k), url: '/validate-plan', cut: k, expected };
  });
  const others = fc.constantFrom<Case>(
    // The outer layer is undone; what is left is 200 KiB of gzip, which is not JSON.
    {
      kind: 'bomb gzipped again, labelled gzip',
      encoding: 'gzip',
      payload: () => spacesTwice,
      url: '/validate-plan',
      expected: { status: 400, code: 'invalid_json' },
    },
    {
      kind: 'bomb gzipped again, labelled "gzip, gzip"',
      encoding: 'gzip, gzip',
      payload: () => spacesTwice,
      url: '/validate-plan',
      expected: { status: 415, code: 'unsupported_encoding' },
    },
    {
      kind: 'bomb to PUT /runs/:id',
      encoding: 'gzip',
      payload: () => spaces,
      url: '/runs/bomb',
      method: 'PUT',
      expected: { status: 413, code: 'body_too_large' },
    },
    // With keys configured, a caller without one is refused before any of the body is read.
    { kind: 'bomb without a key', encoding: 'gzip', payload: () => spaces, url: '/score-plan', app: 'keyed', expected: { status: 401, code: 'unauthorized' } },
  );
  await fc.assert(
    fc.asyncProperty(fc.oneof(whole, truncated, others), async (c) => {
      tally.add(c.kind);
      const payload = c.payload();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 5);
      const started = performance.now();
      const res = await (c.app === 'keyed' ? keyed : open).inject({
        method: c.method ?? 'POST',
        url: c.url,
        headers: { ...JSON_CT, 'content-encoding': c.encoding },
        payload,
      });
      const ms = performance.now() - started;
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      const what = `${c.kind} (${payload.length} bytes${c.cut === undefined ? '' : `, cut at ${c.cut}`}) to ${c.method ?? 'POST'} ${c.url}`;
      expectAnswer(res, c.expected, what);
      check(ms < 5000, () => `${what}: took ${ms.toFixed(0)} ms`);
      // Inflating a bomb whole would hold 64–200 MiB (twice, once joined); stopping at the limit holds about 16 MiB.
      check(peak - before < 256 * 1024 * 1024, () => `${what}: resident memory grew by ${((peak - before) / 2 ** 20).toFixed(0)} MiB`);
    }),
    { numRuns },
  );
  tally.report(t, 'Zip bombs', numRuns);

  // The same over a socket: the 413 comes while the bomb is still arriving, and the service stays up.
  const started = performance.now();
  const status = await new Promise<number | string>((resolve) => {
    const req = request(
      {
        port,
        host: '127.0.0.1',
        method: 'POST',
        path: '/score-plan',
        headers: { ...JSON_CT, 'content-encoding': 'gzip', 'content-length': spaces.length, authorization: `Bearer ${KEYS.score}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 'none'));
      },
    );
    req.on('error', (e) => resolve(e.message));
    req.end(spaces);
  });
  t.equal(status, 413, 'a 200 MiB bomb over a socket: 413');
  t.ok(performance.now() - started < 5000, `answered in ${(performance.now() - started).toFixed(0)} ms`);
  t.ok(await stillHealthy(), '/health answers after it');
});

// ---------------------------------------------------------------------------------------------------------
// Content-Type

t.test('Content-Type: application/json (any case, any parameters) is read; anything else, or none, is 415', async (t) => {
  const numRuns = 400;
  const tally = new Tally();
  const token = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,12}$/);
  const media = fc.oneof(
    fc.constantFrom('application/json', 'APPLICATION/JSON', 'Application/Json', 'application/JSON'),
    fc.constantFrom(
      'text/plain',
      'text/json',
      'application/jsonx',
      'application/json-patch+json',
      'application/vnd.api+json',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
      'application/octet-stream',
      '*/*',
      'application/*',
      'json',
      'application',
      '/json',
      'application/',
      'application /json',
      'application/ json',
      'application/json, text/plain',
      'application/json application/json',
    ),
    fc.tuple(token, token).map(([a, b]) => `${a}/${b}`),
  );
  const parameter = fc.oneof(
    fc.constantFrom('charset=utf-8', 'charset=UTF-8', 'charset="utf-8"', 'charset=latin1', 'charset=utf-16', 'charset=', 'charset', 'q=0.5', 'boundary=x'),
    fc.tuple(token, token).map(([k, v]) => `${k}=${v}`),
    anyString(12),
  );
  const header = fc.oneof(
    fc
      .tuple(ows(0, 2), media, fc.array(fc.tuple(ows(0, 1), ows(0, 1), parameter), { maxLength: 3 }), ows(0, 2))
      .map(([lead, m, params, trail]) => ({ kind: 'media type + parameters', h: lead + m + params.map(([a, b, p]) => `${a};${b}${p}`).join('') + trail })),
    anyString(40).map((h) => ({ kind: 'random string', h })),
    anyString(20).map((s) => ({ kind: '"application/json" + random', h: `application/json${s}` })),
    fc.constant({ kind: 'no content-type', h: undefined as string | undefined }),
    fc.constant({ kind: 'empty content-type', h: '' }),
  );
  await fc.assert(
    fc.asyncProperty(header, fc.constantFrom('json', 'empty', 'gzip'), async ({ kind, h }, bodyAs) => {
      tally.add(kind);
      const payload = bodyAs === 'json' ? PLAN_BODY : bodyAs === 'gzip' ? gzipSync(PLAN_BODY) : '';
      const headers: Record<string, string> = {};
      if (h !== undefined) headers['content-type'] = h;
      if (bodyAs === 'gzip') headers['content-encoding'] = 'gzip';
      const res = await open.inject({ method: 'POST', url: '/validate-plan', headers, payload });
      // The media type is what comes before the first `;`, trimmed, compared without case.
      const isJson = h !== undefined && h.split(';')[0]!.trim().toLowerCase() === 'application/json';
      const expected: Expected =
        h === undefined && bodyAs === 'empty'
          ? { status: 400, code: 'invalid_request' } // no body at all, so no media type needed: the schema wants one
          : !isJson
            ? { status: 415, code: 'unsupported_media_type' }
            : bodyAs === 'empty'
              ? { status: 400, code: 'invalid_request' }
              : { status: 200 };
      expectAnswer(res, expected, `content-type ${JSON.stringify(h)}, body ${bodyAs}`);
    }),
    { numRuns },
  );
  tally.report(t, 'Content-Type variants', numRuns);
});

// ---------------------------------------------------------------------------------------------------------
// Origin (CORS)

t.test('Origin: only the configured origin is ever allowed; a preflight needs no key; the key still decides the status', async (t) => {
  const numRuns = 200;
  const tally = new Tally();
  const origin = fc.oneof(
    fc.constant(ORIGIN),
    fc.constantFrom(ORIGIN.toUpperCase(), `${ORIGIN}/`, `${ORIGIN}.evil.example`, 'http://tutor.example', `${ORIGIN}:443`, 'null', 'https://evil.example'),
    fc.webUrl().map((u) => new URL(u).origin),
    anyString(30).filter((s) => s.trim() === s && s !== '' && !/[\r\n]/.test(s)),
  );
  await fc.assert(
    fc.asyncProperty(origin, fc.constantFrom<Scope | null>(null, 'read', 'score'), fc.boolean(), async (o, key, preflight) => {
      const allowed = o === ORIGIN;
      tally.add(`${preflight ? 'preflight' : 'request'}, ${allowed ? 'allowed' : 'other'} origin`);
      const what = `${preflight ? 'preflight' : 'POST'} from ${JSON.stringify(o)} with ${key ?? 'no'} key`;
      const auth = key === null ? {} : { authorization: `Bearer ${KEYS[key]}` };
      if (preflight) {
        const res = await keyed.inject({
          method: 'OPTIONS',
          url: '/validate-plan',
          headers: { origin: o, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type', ...auth },
        });
        check(res.statusCode === 204, () => `${what}: ${show(res)}`);
        check(
          res.headers['access-control-allow-origin'] === (allowed ? ORIGIN : undefined),
          () => `${what}: ACAO ${res.headers['access-control-allow-origin']}`,
        );
      } else {
        const res = await keyed.inject({ method: 'POST', url: '/validate-plan', headers: { ...JSON_CT, origin: o, ...auth }, payload: PLAN_BODY });
        expectAnswer(res, key === null ? { status: 401, code: 'unauthorized' } : key === 'read' ? { status: 403, code: 'forbidden' } : { status: 200 }, what);
        expectNoKeyEcho(res, undefined, what);
        // Refusals too: a browser app must be able to read its own 401 or 403.
        check(
          res.headers['access-control-allow-origin'] === (allowed ? ORIGIN : undefined),
          () => `${what}: ACAO ${res.headers['access-control-allow-origin']}`,
        );
      }
    }),
    { numRuns },
  );
  tally.report(t, 'Origin', numRuns);
});
