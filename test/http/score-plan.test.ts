import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { benchBatch } from '../../bench/realistic-plans.js';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE, EXAMPLE_QUERY, EXAMPLE_SCORE_REQUEST } from '../../src/contracts/examples.js';
import { ScorePlanRequestSchema, type ScorePlanResponse } from '../../src/contracts/score-plan.js';
import { ConfigSchema } from '../../src/config.js';
import { bytesFingerprint, fingerprint } from '../../src/runs/idempotency.js';
import { dropSpareShared, reuseShared, sharedBytes } from '../../src/common/movable-bytes.js';
import { tempStateDir, testApp } from '../support/app.js';
import { postInPieces } from '../support/pieces.js';

const LIMITS = { MAX_PLANS_PER_REQUEST: 20, MAX_COMPLETION_BYTES: 20_000, MAX_STEPS_PER_PLAN: 12, BODY_LIMIT_BYTES: 200_000, MAX_JSON_DEPTH: 20 };
const app = await testApp(LIMITS);
t.teardown(() => app.close());

const post = (payload: unknown) => app.inject({ method: 'POST', url: '/score-plan', payload: payload as object });
/** A compressed body: read chunk by chunk, its size unknown until its end, then joined and decoded whole. */
const postGzipped = (to: FastifyInstance, body: string | Buffer) =>
  to.inject({ method: 'POST', url: '/score-plan', payload: gzipSync(body), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
const group = (completions: unknown[]) => ({ groups: [{ query: EXAMPLE_QUERY, profile: EXAMPLE_PROFILE, completions }] });

t.test('the example request: clean plan first, cycle and truncated text gated with reasons', async (t) => {
  const res = await post(EXAMPLE_SCORE_REQUEST);
  t.equal(res.statusCode, 200);
  const body = res.json<ScorePlanResponse>();
  const [clean, cyclic, broken] = body.groups[0]!.plans;
  t.same(clean!.gate, { failed: false, reasons: [], classes: [], penalty: 0 });
  t.same(cyclic!.gate.reasons, ['cycle']);
  t.same(cyclic!.violations.find((v) => v.code === 'cycle')?.cycle, ['st1', 'st2', 'st3', 'st4', 'st5', 'st6', 'st8', 'st9', 'st10', 'st1']);
  t.same(broken!.gate.reasons, ['parse_error']);
  t.equal(broken!.components, null);
  t.same(broken!.raw, { struct: 0, pers: 0, ped: 0 });
  t.ok(clean!.reward > cyclic!.reward && cyclic!.reward > broken!.reward);
  t.ok(clean!.advantage > 0 && broken!.advantage < 0);
  t.equal(clean!.components?.ped.value, 1);
  t.ok(Math.abs(clean!.score - (1 + clean!.raw.pers + 1) / 3) < 1e-12);
  t.same(body.weights, { struct: 1 / 3, pers: 1 / 3, ped: 1 / 3 });
  t.same(body.options, { strict: false, lambda_hard: 10, reward_profile: 'paper', epsilon: 1e-6, tau: 1e-6, ddof: 0 });
  t.same(body.palette.source, 'default');
  t.equal(body.palette.tools.length, 8);
  t.equal(body.groups[0]!.id, 'prompt-0');
  t.equal(body.groups[0]!.gated, 2);
  t.ok(body.groups[0]!.signals.some((s) => s.id === 'pandas'));
});

t.test('options are applied and echoed', async (t) => {
  const res = await post({
    ...group([EXAMPLE_PLAN, { ...EXAMPLE_PLAN, execution_order: [...EXAMPLE_PLAN.execution_order].reverse() }]),
    options: { strict: true, lambda_hard: 3, ddof: 1, epsilon: 1e-4, tau: 0 },
  });
  t.equal(res.statusCode, 200);
  const body = res.json<ScorePlanResponse>();
  t.same(body.options, { strict: true, lambda_hard: 3, reward_profile: 'paper', epsilon: 1e-4, tau: 0, ddof: 1 });
  const reversed = body.groups[0]!.plans[1]!;
  t.same(reversed.gate.reasons, ['order_before_prerequisite'], 'strict gates ordering violations');
  t.equal(reversed.gate.penalty, -3);
});

t.test('a request palette replaces the default one', async (t) => {
  const res = await post({ ...group([EXAMPLE_PLAN]), palette: ['CodeInterpreterTool', { name: 'FileWriterTool', description: 'writes' }] });
  const plan = res.json<ScorePlanResponse>().groups[0]!.plans[0]!;
  t.same(res.json<ScorePlanResponse>().palette, { source: 'request', tools: ['CodeInterpreterTool', 'FileWriterTool'] });
  t.ok(plan.gate.reasons.includes('tool_not_in_palette'));
});

t.test('free-text profile and object completions with normalizations', async (t) => {
  const variant = { ...EXAMPLE_PLAN, steps: EXAMPLE_PLAN.steps.map(({ depends_on, ...s }) => ({ ...s, dependencies: depends_on })) };
  const res = await post({ groups: [{ query: 'q', profile: 'Analyst who knows SQL and wants to learn pandas', completions: [variant] }] });
  const plan = res.json<ScorePlanResponse>().groups[0]!.plans[0]!;
  t.equal(plan.gate.failed, false);
  t.equal(plan.normalizations.length, 10);
  t.same(plan.normalizations[0], { path: '$.steps[0].dependencies', rule: 'field_alias', detail: 'dependencies → depends_on' });
  t.same(
    plan.components?.pers?.hits.map((h) => h.id),
    ['sql', 'pandas'],
  );
});

t.test('plan limits gate the plan, never the request', async (t) => {
  const big = { ...EXAMPLE_PLAN, steps: [...EXAMPLE_PLAN.steps, ...EXAMPLE_PLAN.steps.slice(0, 3).map((s) => ({ ...s, id: `${s.id}x` }))] };
  const res = await post(group([JSON.stringify(EXAMPLE_PLAN) + ' '.repeat(20_001), big, 42, null, ['a'], EXAMPLE_PLAN]));
  t.equal(res.statusCode, 200);
  const plans = res.json<ScorePlanResponse>().groups[0]!.plans;
  t.same(
    plans.map((p) => p.gate.reasons),
    [['plan_too_large'], ['plan_too_large'], ['parse_error'], ['parse_error'], ['parse_error'], []],
  );
  t.match(plans[0]!.violations[0]!.message, /over the 20000-byte limit/);
  t.match(plans[1]!.violations[0]!, { path: '$.steps', message: /13 steps, over the 12-step limit/ });
});

t.test('schema-invalid plans are gated with the field path', async (t) => {
  const res = await post(group([{ ...EXAMPLE_PLAN, agents: [{ id: 'x' }] }, { steps: 'none' }]));
  const plans = res.json<ScorePlanResponse>().groups[0]!.plans;
  t.same(plans[0]!.gate.reasons, ['schema_invalid']);
  t.same(
    plans[0]!.violations.map((v) => v.path),
    ['$.agents[0].role'],
  );
  t.same(
    plans[1]!.violations.map((v) => v.path),
    ['$.agents', '$.subtasks', '$.steps', '$.execution_order'],
  );
});

t.test('request-envelope errors are 400s naming the field', async (t) => {
  const cases: Array<[unknown, string]> = [
    [{}, '$.groups'],
    [{ groups: [] }, '$.groups'],
    [{ groups: [{ query: 'q', profile: {}, completions: [] }] }, '$.groups[0].completions'],
    [{ groups: [{ query: 1, profile: {}, completions: ['x'] }] }, '$.groups[0].query'],
    [{ groups: [{ query: 'q', profile: 7, completions: ['x'] }] }, '$.groups[0].profile'],
    [{ groups: [{ query: 'q', profile: { tags: [1] }, completions: ['x'] }] }, '$.groups[0].profile'],
    [{ ...group(['x']), options: { ddof: 2 } }, '$.options.ddof'],
    [{ ...group(['x']), options: { epsilon: 0 } }, '$.options.epsilon'],
    [{ ...group(['x']), options: { lambda: 1 } }, '$.options'],
    [{ ...group(['x']), palette: [] }, '$.palette'],
    [{ ...group(['x']), palette: [{ name: 'T', phase: 'nap' }] }, '$.palette[0]'],
    [{ groups: Array.from({ length: 3 }, () => group(Array(7).fill('x')).groups[0]) }, '$.groups'],
  ];
  for (const [payload, path] of cases) {
    const res = await post(payload);
    t.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 80));
    const body = res.json<{ issues: { path: string }[]; message: string }>();
    t.ok(
      body.issues.some((i) => i.path.startsWith(path)),
      `${path} in ${JSON.stringify(body.issues)}`,
    );
  }
});

t.test('malformed bodies: invalid JSON, wrong content type, too large, too deep', async (t) => {
  const bad = await app.inject({ method: 'POST', url: '/score-plan', payload: '{"groups": [', headers: { 'content-type': 'application/json' } });
  t.equal(bad.statusCode, 400);
  // text/plain is not read as a JSON string any more: it is not JSON's media type (415).
  const text = await app.inject({ method: 'POST', url: '/score-plan', payload: 'groups', headers: { 'content-type': 'text/plain' } });
  t.equal(text.statusCode, 415);
  const xml = await app.inject({ method: 'POST', url: '/score-plan', payload: '<groups/>', headers: { 'content-type': 'application/xml' } });
  t.equal(xml.statusCode, 415);
  const large = await post(group(['x'.repeat(210_000)]));
  t.equal(large.statusCode, 413);
  let deep: unknown = 'x';
  for (let i = 0; i < 30; i++) deep = { d: deep };
  const tooDeep = await post(group([deep]));
  t.equal(tooDeep.statusCode, 400);
  t.match(tooDeep.json(), { issues: [{ path: /^\$\.groups\[0\]\.completions\[0\](\.d)+$/ }] });
  for (const r of [bad, text, xml, large, tooDeep]) t.match(r.json(), { statusCode: Number, error: String, message: String });
});

t.test('unknown routes are JSON 404s', async (t) => {
  const res = await app.inject({ method: 'GET', url: '/nope' });
  t.equal(res.statusCode, 404);
  t.match(res.json(), { error: 'Not Found' });
});

t.test('options.detail = "rewards": the same numbers, gates and raw values, without the explanations', async (t) => {
  const completions = [...EXAMPLE_SCORE_REQUEST.groups[0]!.completions, JSON.stringify(EXAMPLE_PLAN).repeat(1)];
  const full = await post({ ...group(completions), run_id: null });
  const compact = await post({ ...group(completions), run_id: null, options: { detail: 'rewards' } });
  t.equal(compact.statusCode, 200, compact.body);
  const f = full.json<ScorePlanResponse>();
  const c = compact.json<ScorePlanResponse>();
  t.same(
    c.groups[0]!.plans,
    f.groups[0]!.plans.map(({ index, reward, advantage, score, z, gaming_flags, aboutness, gate, raw }) => ({
      index,
      reward,
      advantage,
      score,
      z,
      gaming_flags,
      aboutness,
      gate,
      raw,
    })),
  );
  t.same(
    f.groups[0]!.plans.map((p) => p.aboutness),
    f.groups[0]!.plans.map((p) => p.gaming?.guarded?.about ?? null),
    "each plan's aboutness is its gaming.guarded.about, null when it has none",
  );
  t.same({ ...c, groups: [] }, { ...f, groups: [] }, 'weights, options, palette, versions, run as in full');
  t.ok(compact.body.length * 3 < full.body.length, `${compact.body.length} bytes against ${full.body.length}`);
  const bad = await post({ ...group(completions), options: { detail: 'some' } });
  t.equal(bad.statusCode, 400);
  t.match(bad.json(), { issues: [{ path: '$.options.detail' }] });
});

t.test('a run request past a tiny deadline is a 504, and its abandoned judging rejects nothing unhandled', async (t) => {
  // Over 16 KB of completion text, so the plans are judged as a task: on a worker, asynchronously, or on
  // the main thread (WORKERS=0) in one piece that no timer interrupts.
  const big = group(Array.from({ length: 20 }, () => JSON.stringify(EXAMPLE_PLAN)));
  t.ok(JSON.stringify(big).length > 16 * 1024);
  const onWorker = await testApp({ ...LIMITS, WORKERS: 1 });
  t.teardown(() => onWorker.close());
  for (const [where, server] of [
    ['a worker', onWorker],
    ['the main thread', app],
  ] as const) {
    for (const run_id of ['deadline-run', null]) {
      const res = await server.inject({ method: 'POST', url: '/score-plan', payload: { ...big, run_id, options: { deadline_ms: 1 } } });
      t.equal(res.statusCode, 504, `on ${where}: ${res.body.slice(0, 200)}`);
    }
    // An unhandled rejection would surface here and fail the test (and end a real process).
    await new Promise((r) => setTimeout(r, 300));
    t.equal((await server.inject({ method: 'GET', url: '/runs/deadline-run' })).statusCode, 404, `on ${where}: nothing of it was recorded`);
  }
});

t.test("a receipt holds the SHA-256 of the body's bytes; retries replay across thread counts, other bytes are a conflict", async (t) => {
  const state = tempStateDir();
  t.teardown(() => rmSync(state, { recursive: true, force: true }));
  const settings = { STATE_DIR: state, MAX_PLANS_PER_REQUEST: 1024 };
  const batch = (seed: number, step: number) => JSON.stringify({ ...benchBatch(64, 8, seed), run_id: 'fp', step });
  const send = (to: FastifyInstance, payload: string, key: string) =>
    to.inject({ method: 'POST', url: '/score-plan', payload, headers: { 'content-type': 'application/json', 'idempotency-key': key } });
  const pooled = await testApp({ ...settings, WORKERS: 2 });
  const first = await send(pooled, batch(1, 0), 'a');
  t.equal(first.statusCode, 200);
  t.equal((await send(pooled, batch(1, 0), 'a')).headers['idempotent-replayed'], 'true', 'a retry on the workers');
  t.equal((await send(pooled, batch(2, 0), 'a')).statusCode, 409, 'another body under the key, on the workers');
  const spaced = JSON.stringify(JSON.parse(batch(1, 0)), null, 1);
  t.equal((await send(pooled, spaced, 'a')).statusCode, 409, 'the same content in other bytes: a retry sends the same bytes');
  const second = await send(pooled, batch(3, 0), 'b');
  await pooled.close();

  const inline = await testApp({ ...settings, WORKERS: 0 });
  t.teardown(() => inline.close());
  const retried = await send(inline, batch(1, 0), 'a');
  t.equal(retried.headers['idempotent-replayed'], 'true', 'judged on the workers, retried on the main thread');
  t.ok(retried.rawPayload.equals(first.rawPayload), 'the same bytes');
  t.equal((await send(inline, batch(3, 0), 'b')).headers['idempotent-replayed'], 'true');
  t.equal((await send(inline, batch(2, 0), 'b')).statusCode, 409, 'another body under the key, on the main thread');
  t.equal(second.statusCode, 200);
  const counted = await inline.inject({ method: 'POST', url: '/score-plan', payload: { ...EXAMPLE_SCORE_REQUEST, run_id: 'fp', step: 1 } });
  t.match(counted.json(), { run: { finalized: [{ step: 0, plans: 1024, requests: 2 }] } }, 'each counted once');

  const db = new Database(join(state, 'runs.sqlite'), { readonly: true });
  t.teardown(() => db.close());
  const stored = db.prepare<[], { fingerprint: string }>("SELECT fingerprint FROM receipts WHERE run_id = 'fp' ORDER BY id").all();
  t.same(
    stored.map((r) => r.fingerprint),
    [batch(1, 0), batch(3, 0)].map((b) => bytesFingerprint(createHash('sha256').update(b).digest())),
  );
});

t.test('a receipt stored with the fingerprint of the content (before fingerprints were of bytes) is compared by content', async (t) => {
  const state = tempStateDir();
  t.teardown(() => rmSync(state, { recursive: true, force: true }));
  const served = await testApp({ STATE_DIR: state, WORKERS: 2, MAX_PLANS_PER_REQUEST: 1100, BODY_LIMIT_BYTES: 8 << 20 });
  t.teardown(() => served.close());
  const db = new Database(join(state, 'runs.sqlite'));
  t.teardown(() => db.close());
  const send = (payload: string | Buffer, key: string, gzip = false) =>
    served.inject({
      method: 'POST',
      url: '/score-plan',
      payload: gzip ? gzipSync(payload) : payload,
      headers: { 'content-type': 'application/json', 'idempotency-key': key, ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
    });
  // Parsed here (64×8), its groups read on the workers (128×8, over 4 MiB), or read whole on a worker (compressed).
  for (const [what, groups, gzip] of [
    ['parsed on the main thread', 64, false],
    ['its groups read on the workers', 128, false],
    ['read whole on a worker', 128, true],
  ] as const) {
    const run = `legacy-${groups}-${gzip}`;
    const body = JSON.stringify({ ...benchBatch(groups, 8), run_id: run, step: 0 });
    const first = await send(body, 'k', gzip);
    t.equal(first.statusCode, 200, what);
    const content = fingerprint(ScorePlanRequestSchema.parse(JSON.parse(body)));
    t.equal(db.prepare('UPDATE receipts SET fingerprint = ? WHERE run_id = ?').run(content, run).changes, 1);
    const retry = await send(body, 'k', gzip);
    t.equal(retry.headers['idempotent-replayed'], 'true', `${what}: the same body replays`);
    t.ok(retry.rawPayload.equals(first.rawPayload), `${what}: the same bytes back`);
    t.equal((await send(JSON.stringify(JSON.parse(body), null, 1), 'k', gzip)).headers['idempotent-replayed'], 'true', `${what}: so does the same content`);
    const other = JSON.stringify({ ...benchBatch(groups, 8, 9), run_id: run, step: 0 });
    t.equal((await send(other, 'k', gzip)).statusCode, 409, `${what}: other content is a conflict`);
    const next = await served.inject({ method: 'POST', url: '/score-plan', payload: { ...EXAMPLE_SCORE_REQUEST, run_id: run, step: 1 } });
    t.match(next.json(), { run: { finalized: [{ step: 0, requests: 1 }] } }, `${what}: counted once`);
  }
});

t.test('a body of 4 MiB or more, its groups read on the workers: the same 400s, limits, replays and conflicts', async (t) => {
  const big = await testApp({ WORKERS: 2, MAX_PLANS_PER_REQUEST: 1100, BODY_LIMIT_BYTES: 8 << 20 });
  t.teardown(() => big.close());
  const send = (payload: string, headers: Record<string, string> = {}) =>
    big.inject({ method: 'POST', url: '/score-plan', payload, headers: { 'content-type': 'application/json', ...headers } });
  const batch = benchBatch(128, 8);
  t.ok(JSON.stringify(batch).length > 4 << 20, 'the 128×8 batch is over 4 MiB');

  const notJson = await send(`{"groups": [${' '.repeat(4 << 20)}`);
  t.equal(notJson.statusCode, 400);
  t.match(notJson.json(), { code: 'invalid_json' });
  const badProfile = await send(JSON.stringify({ ...batch, groups: batch.groups.map((g, i) => (i === 40 ? { ...g, profile: 7 } : g)) }));
  t.equal(badProfile.statusCode, 400);
  t.match(badProfile.json(), { code: 'invalid_request', issues: [{ path: '$.groups[40].profile' }] });
  // Parts read on different workers, or a bad head beside a bad group: the 400 of the body read whole.
  for (const [what, body] of [
    ['bad profiles far apart', JSON.stringify({ ...batch, groups: batch.groups.map((g, i) => (i === 2 || i === 120 ? { ...g, profile: 7 } : g)) })],
    ['a bad head and a bad group', JSON.stringify({ ...batch, step: -1, groups: batch.groups.map((g, i) => (i === 20 ? { ...g, query: 1 } : g)) })],
  ] as const) {
    const plain = await send(body);
    t.equal(plain.statusCode, 400, what);
    t.ok(plain.rawPayload.equals((await postGzipped(big, body)).rawPayload), `${what}: the same bytes as read whole`);
    t.ok(plain.json<{ issues: unknown[] }>().issues.length >= 2, `${what}: every issue listed`);
  }
  let deep: unknown = 'x';
  for (let i = 0; i < 70; i++) deep = { d: deep };
  const tooDeep = await send(JSON.stringify({ ...batch, groups: batch.groups.map((g, i) => (i === 3 ? { ...g, completions: [deep] } : g)) }));
  t.equal(tooDeep.statusCode, 400);
  t.match(tooDeep.json(), { issues: [{ path: /^\$\.groups\[3\]\.completions\[0\](\.d)+$/ }] });
  const tooMany = await send(JSON.stringify({ ...benchBatch(160, 8), run_id: null }));
  t.equal(tooMany.statusCode, 400);
  t.match(tooMany.json(), { issues: [{ path: '$.groups', message: 'at most 1100 completions in all' }] });
  // Read whole on a worker (compressed), its plans are counted before any is judged: a 1 ms deadline,
  // which judging would overrun, does not come into it.
  const tooManyZipped = await postGzipped(big, JSON.stringify({ ...benchBatch(160, 8), run_id: null, options: { deadline_ms: 1 } }));
  t.equal(tooManyZipped.statusCode, 400, tooManyZipped.body.slice(0, 200));
  t.match(tooManyZipped.json(), { issues: [{ path: '$.groups', message: 'at most 1100 completions in all' }] });
  const tooLarge = await send(JSON.stringify({ ...benchBatch(256, 8), run_id: null }));
  t.equal(tooLarge.statusCode, 413);

  const stateless = JSON.stringify({ ...batch, run_id: null });
  const plain = await send(stateless);
  t.equal(plain.statusCode, 200);
  const zipped = await postGzipped(big, stateless);
  t.ok(zipped.rawPayload.equals(plain.rawPayload), 'a compressed body (read chunk by chunk, its size unknown) gets the same bytes');
  const length = Buffer.byteLength(stateless);
  for (const declared of [length + 10, length - 10]) {
    const wrong = await send(stateless, { 'content-length': String(declared) });
    t.equal(wrong.statusCode, 400, `Content-Length ${declared - length} off`);
  }

  const body = JSON.stringify({ ...batch, run_id: 'large', step: 0 });
  const first = await send(body, { 'idempotency-key': 'k' });
  t.equal(first.statusCode, 200);
  t.equal(first.json<ScorePlanResponse>().groups.length, 128);
  const retry = await send(body, { 'idempotency-key': 'k' });
  t.equal(retry.headers['idempotent-replayed'], 'true');
  t.ok(retry.rawPayload.equals(first.rawPayload), 'the retry gets the same bytes');
  // Compressed, it is read whole on a worker; its fingerprint is of the decoded bytes.
  const zippedWithKey = (payload: string) =>
    big.inject({
      method: 'POST',
      url: '/score-plan',
      payload: gzipSync(payload),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'idempotency-key': 'k' },
    });
  t.equal((await zippedWithKey(body)).headers['idempotent-replayed'], 'true', 'a compressed retry, read on a worker');
  t.equal((await zippedWithKey(JSON.stringify({ ...batch, run_id: 'large', step: 0, options: { strict: true } }))).statusCode, 409, 'another body, compressed');
  const reused = await send(JSON.stringify({ ...benchBatch(128, 8, 5), run_id: 'large', step: 0 }), { 'idempotency-key': 'k' });
  t.equal(reused.statusCode, 409);
  const step1 = await send(JSON.stringify({ ...EXAMPLE_SCORE_REQUEST, run_id: 'large', step: 1 }));
  t.match(step1.json(), { run: { step: 1, finalized: [{ step: 0, plans: 1024, requests: 1 }] } }, 'counted once');
});

t.test('large bodies in turn, each in the buffer the one before gave back: each answered as if read alone', async (t) => {
  const big = await testApp({ WORKERS: 2, MAX_PLANS_PER_REQUEST: 1100, BODY_LIMIT_BYTES: 8 << 20 });
  t.teardown(() => big.close());
  const send = (payload: string) => big.inject({ method: 'POST', url: '/score-plan', payload, headers: { 'content-type': 'application/json' } });
  // The buffer a body was copied into, given back, is the next large body's: it holds that body's bytes.
  const givenBack = (body: string, what: string) => {
    const next = sharedBytes(4 << 20);
    t.equal(Buffer.from(next.buffer, 0, 200).toString(), body.slice(0, 200), `${what}: its buffer is given back`);
    reuseShared(next);
  };
  dropSpareShared();
  // The second is smaller: the tail of its buffer still holds the first body's bytes.
  for (const [groups, seed] of [
    [128, 1],
    [120, 2],
    [128, 3],
  ] as const) {
    const body = JSON.stringify({ ...benchBatch(groups, 8, seed), run_id: null });
    t.ok(body.length > 4 << 20, `${groups}×8: ${body.length} bytes, its groups read on the workers`);
    const res = await send(body);
    t.equal(res.statusCode, 200);
    // Compressed, the body is read whole on a worker, from a buffer of its own.
    t.ok(res.rawPayload.equals((await postGzipped(big, body)).rawPayload), `${groups}×8, seed ${seed}: the bytes it gets read alone`);
    givenBack(body, `${groups}×8`);
  }
  const bad = JSON.stringify({ ...benchBatch(128, 8), groups: benchBatch(128, 8).groups.map((g, i) => (i === 7 ? { ...g, profile: 7 } : g)) });
  const refused = await send(bad);
  t.match(refused.json(), { code: 'invalid_request', issues: [{ path: '$.groups[7].profile' }] });
  givenBack(bad, 'a refused body');
});

t.test('a body parsed on the main thread is decoded as it arrives: characters split between chunks read the same', async (t) => {
  const served = await testApp({ MAX_PLANS_PER_REQUEST: 1100, BODY_LIMIT_BYTES: 8 << 20 });
  t.teardown(() => served.close());
  const base = await served.listen({ port: 0, host: '127.0.0.1' });
  const label = 'Gruppe für Ümlaute → 例 🙂';
  // Decoded whole (under 128 KiB), and read group by group, finished at once (under 1 MiB) or in a turn of its own.
  for (const [groups, from, to] of [
    [2, 0, 128 << 10],
    [8, 128 << 10, 1 << 20],
    [40, 1 << 20, 4 << 20],
  ] as const) {
    const batch = benchBatch(groups, 8);
    batch.groups[0]!.id = label;
    batch.groups[1]!.completions[0] = String(batch.groups[1]!.completions[0]).replaceAll('"step1"', '"schritt→例🙂"');
    const bytes = Buffer.from(JSON.stringify({ ...batch, run_id: null }));
    t.ok(bytes.length >= from && bytes.length < to, `${groups} groups: ${bytes.length} bytes`);
    // Cut inside the four bytes of every emoji, and in 16 KiB pieces elsewhere.
    const cuts = new Set<number>();
    for (let at = bytes.indexOf('🙂'); at !== -1; at = bytes.indexOf('🙂', at + 1)) cuts.add(at + 2);
    for (let at = 16 << 10; at < bytes.length; at += 16 << 10) cuts.add(at);
    const ends = [...cuts].sort((a, b) => a - b);
    const pieces = ends.map((end, i) => bytes.subarray(ends[i - 1] ?? 0, end)).concat(bytes.subarray(ends.at(-1)!));
    const split = await postInPieces(`${base}/score-plan`, pieces);
    t.equal(split.status, 200);
    // The reference: a compressed body, joined and decoded whole at its end.
    const whole = await postGzipped(served, bytes);
    t.ok(split.body.equals(whole.rawPayload), `${groups} groups: the same response bytes`);
    const answer = JSON.parse(split.body.toString('utf8')) as ScorePlanResponse;
    t.equal(answer.groups[0]!.id, label);
    t.match(JSON.stringify(answer.groups[1]!.plans[0]), '"schritt→例🙂"', 'a step id as sent, in the explanation');
  }
});

t.test('a body of 128 KiB to 4 MiB read group by group: the same answers as one parsed whole, the odd ones included', async (t) => {
  const served = await testApp({ MAX_PLANS_PER_REQUEST: 1100, BODY_LIMIT_BYTES: 8 << 20, MAX_JSON_DEPTH: 20 });
  t.teardown(() => served.close());
  const send = (payload: string) => served.inject({ method: 'POST', url: '/score-plan', payload, headers: { 'content-type': 'application/json' } });
  let deep: unknown = 'x';
  for (let i = 0; i < 30; i++) deep = { d: deep };
  // Under 1 MiB the body is finished at once, from 1 MiB in a turn of its own.
  for (const [groups, from, to] of [
    [8, 128 << 10, 1 << 20],
    [40, 1 << 20, 4 << 20],
  ] as const) {
    const batch = { ...benchBatch(groups, 8), run_id: null };
    const json = JSON.stringify(batch);
    t.ok(json.length >= from && json.length < to, `${groups} groups: ${json.length} bytes`);
    const cases: [string, string, number][] = [
      ['well formed', json, 200],
      // Read whole: the scanner does not spell out escapes, nor guess which of two keys JSON.parse keeps.
      ['"groups" written with an escape', json.replace('"groups"', '"gr\\u006fups"'), 200],
      ['"groups" twice', `${json.slice(0, -1)},"groups":${JSON.stringify(batch.groups.slice(0, 2))}}`, 200],
      ['a group that is not JSON', json.replace('"profile"', '"profile":,"x"'), 400],
      ['a "__proto__" key in a group', json.replace('{"id"', '{"__proto__":{"x":1},"id"'), 200],
      ['a group nested too deep', JSON.stringify({ ...batch, groups: batch.groups.map((g, i) => (i === 7 ? { ...g, completions: [deep] } : g)) }), 400],
      ['a bad profile', JSON.stringify({ ...batch, groups: batch.groups.map((g, i) => (i === groups - 3 ? { ...g, profile: 7 } : g)) }), 400],
    ];
    for (const [what, body, status] of cases) {
      const plain = await send(body);
      t.equal(plain.statusCode, status, `${groups} groups, ${what}: ${plain.body.slice(0, 200)}`);
      // The reference: a compressed body, its size unknown until its end, parsed whole.
      const whole = await postGzipped(served, body);
      t.ok(plain.rawPayload.equals(whole.rawPayload), `${groups} groups, ${what}: the same bytes as parsed whole`);
    }
  }
});

t.test('reward_profile guarded: a keyword list ranks below the real plan, with its signals and evidence', async (t) => {
  const keywordList = {
    agents: [{ id: 'a', role: 'tutor', tools: [] }],
    subtasks: [{ id: 's', name: 'Plan' }],
    steps: ['Activate', 'Demonstrate', 'Apply', 'Verify'].map((cue, i) => ({
      id: `k${i}`,
      subtask: 's',
      agent: 'a',
      instruction: `python, pandas, sql, excel ${cue}`,
      tool: null,
      depends_on: [],
      human_input: true,
    })),
    execution_order: ['k0', 'k1', 'k2', 'k3'],
  };
  const ask = async (reward_profile: 'paper' | 'guarded') => {
    const res = await post({ ...group([EXAMPLE_PLAN, keywordList]), options: { reward_profile } });
    t.equal(res.statusCode, 200, res.body);
    return res.json<ScorePlanResponse>();
  };
  const paper = await ask('paper');
  const guarded = await ask('guarded');
  t.equal(guarded.options.reward_profile, 'guarded');
  const [real, gamed] = guarded.groups[0]!.plans;
  t.ok(paper.groups[0]!.plans[1]!.score > paper.groups[0]!.plans[0]!.score, 'the paper reward overpays the keyword list');
  t.ok(gamed!.reward < real!.reward && gamed!.score < real!.score, 'guarded ranks it below the real plan');
  t.same(real!.gaming_flags, []);
  t.ok(gamed!.gaming_flags.includes('degenerate_structure') && gamed!.gaming_flags.includes('keyword_stuffing'), `signals ${gamed!.gaming_flags}`);
  t.same(paper.groups[0]!.plans[1]!.gaming_flags, gamed!.gaming_flags, 'the same signals in both profiles');
  const signal = gamed!.gaming!.signals.find((s) => s.code === 'degenerate_structure')!;
  t.match(signal.message, /none of the 4 steps depends on another/);
  const credit = gamed!.gaming!.guarded!;
  t.equal(credit.multiplier, credit.about * 0.5 ** gamed!.gaming_flags.length, 'm = G · (1 − π)^signals');
  t.ok(credit.about < 0.5, `the keyword list is not about the question: G ${credit.about}`);
  t.same(gamed!.raw, credit.raw, 'guarded raw values are the guarded credit');
  t.equal(paper.groups[0]!.plans[1]!.gaming!.guarded, null, 'paper does not take the meaning reading');
  const compact = await post({ ...group([keywordList]), options: { reward_profile: 'guarded', detail: 'rewards' } });
  t.same(compact.json<ScorePlanResponse>().groups[0]!.plans[0]!.gaming_flags, gamed!.gaming_flags);
  t.equal(compact.json<ScorePlanResponse>().groups[0]!.plans[0]!.aboutness, gamed!.gaming!.guarded?.about, 'aboutness: G, in the compact answer too');
  t.type(gamed!.aboutness, 'number');
  t.equal(paper.groups[0]!.plans[1]!.aboutness, null, 'under paper, no aboutness');
});

t.test('reward_profile: a run scores with its own; an unknown profile is a 400 naming the field', async (t) => {
  const put = await app.inject({ method: 'PUT', url: '/runs/guarded-run', payload: { reward_profile: 'guarded' } });
  t.equal(put.statusCode, 201, put.body);
  const res = await post({ ...group([EXAMPLE_PLAN]), run_id: 'guarded-run', step: 0 });
  t.equal(res.json<ScorePlanResponse>().options.reward_profile, 'guarded');
  const overridden = await post({ ...group([EXAMPLE_PLAN]), run_id: 'guarded-run', step: 0, options: { reward_profile: 'paper' } });
  t.equal(overridden.json<ScorePlanResponse>().options.reward_profile, 'paper');
  const bad = await post({ ...group([EXAMPLE_PLAN]), options: { reward_profile: 'lenient' } });
  t.equal(bad.statusCode, 400);
  t.match(bad.body, /options\.reward_profile|reward_profile/);
});

t.test('the default limits agree: MAX_PLANS_PER_REQUEST realistic plans fit the default body limit', async (t) => {
  const served = await testApp({ WORKERS: 2 });
  t.teardown(() => served.close());
  const body = JSON.stringify({ ...benchBatch(512, 8), options: { detail: 'rewards' } });
  const res = await served.inject({ method: 'POST', url: '/score-plan', payload: body, headers: { 'content-type': 'application/json' } });
  t.equal(res.statusCode, 200, `4,096 plans in ${(body.length / 2 ** 20).toFixed(1)} MiB are scored`);
  t.equal(
    (res.json() as ScorePlanResponse).groups.reduce((n, g) => n + g.plans.length, 0),
    4096,
  );
  const over = await served.inject({
    method: 'POST',
    url: '/score-plan',
    payload: body.padEnd(ConfigSchema.parse({}).BODY_LIMIT_BYTES + 1),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(over.statusCode, 413, 'and a body past the limit is still refused');
});
