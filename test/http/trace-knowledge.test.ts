import { readFileSync } from 'node:fs';
import t from 'tap';
import { DEFAULT_PARAMS } from '../../src/contracts/trace-knowledge.js';
import { posterior, transition } from '../../src/tracing/bkt.js';
import { testApp } from '../support/app.js';

type Pair = { dependency_all: string; reference_steps: string; model_1: { conversation: Record<string, string>[] } };
const pairs = JSON.parse(readFileSync(new URL('../fixtures/coding-tutor/example_eval_pairs.json', import.meta.url), 'utf8')) as Pair[];
const turnsOf = (p: Pair) => p.model_1.conversation.map((m) => ({ role: Object.keys(m)[0] as 'tutor' | 'student', text: Object.values(m)[0]! }));
const jax = { task: { dependency_all: pairs[1]!.dependency_all, reference_steps: pairs[1]!.reference_steps }, context: turnsOf(pairs[1]!) };

t.test('POST /trace-knowledge: BKT per KC through a real dialogue, with the evidence that moved it', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/trace-knowledge', payload: jax });
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.equal(body.kcs.length, 9, '1 dependency + 8 steps');
  t.same(body.params, DEFAULT_PARAMS);
  t.equal(body.threshold, 0.95);
  t.same([...body.known, ...body.unknown].sort(), body.kcs.map((k: { id: string }) => k.id).sort(), 'every KC is known or unknown');
  for (const kc of body.kcs) {
    t.equal(kc.status, kc.p_after >= 0.95 ? 'known' : 'unknown');
    // The evidence chain is the whole update: each step starts where the previous ended.
    let p = kc.p_before;
    for (const ev of kc.evidence) {
      t.equal(ev.p_before, p);
      p = ev.p_after;
    }
    t.equal(p, kc.p_after);
  }
  const nextafter = body.kcs.find((k: { id: string }) => k.id === 'step:6');
  t.same(
    nextafter.evidence.map((e: { turn: number; observation: string }) => [e.turn, e.observation]),
    [
      [8, 'taught'],
      [9, 'incorrect'],
      [10, 'taught'],
      [11, 'correct'],
    ],
  );
  // Hand check of the first two updates (strength 1): transition alone, then posterior(incorrect) and transition.
  const taught = transition(DEFAULT_PARAMS.prior, DEFAULT_PARAMS);
  t.ok(Math.abs(nextafter.evidence[0].p_after - taught) < 1e-12);
  t.ok(Math.abs(nextafter.evidence[1].p_after - transition(posterior(taught, false, DEFAULT_PARAMS), DEFAULT_PARAMS)) < 1e-12);
  t.equal(body.turns_read, 12);
  t.equal(body.turns_total, 12);
});

t.test('stateless: the estimate passed back with previous_turns continues exactly where it stopped', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const whole = (await app.inject({ method: 'POST', url: '/trace-knowledge', payload: jax })).json();
  const first = (await app.inject({ method: 'POST', url: '/trace-knowledge', payload: { ...jax, context: jax.context.slice(0, 7) } })).json();
  const previous = Object.fromEntries(first.kcs.map((k: { id: string; p_after: number }) => [k.id, k.p_after]));
  const rest = (await app.inject({ method: 'POST', url: '/trace-knowledge', payload: { ...jax, previous, previous_turns: first.turns_total } })).json();
  t.equal(rest.turns_read, 5);
  t.same(
    rest.kcs.map((k: { p_after: number }) => k.p_after),
    whole.kcs.map((k: { p_after: number }) => k.p_after),
  );
  t.same(rest.known, whole.known);

  // The paper's format as the previous estimate: known KCs start at the threshold, unknown ones at the prior.
  const lists = (
    await app.inject({ method: 'POST', url: '/trace-knowledge', payload: { ...jax, context: [], previous: { known: ['step:1'], unknown: ['step:2'] } } })
  ).json();
  t.match(
    lists.kcs.find((k: { id: string }) => k.id === 'step:1'),
    { p_before: 0.95, p_after: 0.95, status: 'known' },
  );
  t.match(
    lists.kcs.find((k: { id: string }) => k.id === 'step:2'),
    { p_before: DEFAULT_PARAMS.prior, status: 'unknown' },
  );
});

t.test('explicit KCs, parameters and threshold; a tutor-only dialogue never makes a KC observed', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const params = { prior: 0.3, learn: 0.2, guess: 0.1, slip: 0.1, forget: 0 };
  const kcs = [{ id: 'where', text: 'Use `jnp.where` for the conditional', kind: 'step' }];
  const res = await app.inject({
    method: 'POST',
    url: '/trace-knowledge',
    payload: { kcs, params, threshold: 0.5, context: [{ role: 'student', text: 'I wrote `jnp.where(x < t, t, x)`.' }] },
  });
  // posterior(0.3, correct) = 0.3·0.9 / (0.3·0.9 + 0.7·0.1) = 0.27 / 0.34; then + (1 − post)·0.2.
  const post = 0.27 / 0.34;
  t.ok(Math.abs(res.json().kcs[0].p_after - (post + (1 - post) * 0.2)) < 1e-12);
  t.same(res.json().known, ['where']);
  const tutorOnly = await app.inject({ method: 'POST', url: '/trace-knowledge', payload: { ...jax, context: jax.context.filter((m) => m.role === 'tutor') } });
  const observations = tutorOnly.json().kcs.flatMap((k: { evidence: { observation: string }[] }) => k.evidence.map((e) => e.observation));
  t.ok(observations.length > 0);
  t.ok(
    observations.every((o: string) => o === 'taught'),
    'explaining is an opportunity to learn, not evidence of knowing',
  );
});

t.test('POST /trace-knowledge: bad requests are 400s naming the field', async (t) => {
  const app = await testApp();
  t.teardown(() => app.close());
  const kcs = [{ id: 'a', text: 'Use `foo_bar`', kind: 'step' }];
  const cases: [string, unknown, string][] = [
    ['neither task nor kcs', { context: [] }, '$'],
    ['both task and kcs', { ...jax, kcs }, '$'],
    ['a task without KCs', { task: { dependency_all: '# Intra-file Dependency:\n' }, context: [] }, '$.task'],
    ['duplicate KC ids', { kcs: [...kcs, ...kcs], context: [] }, '$.kcs[1].id'],
    ['an unknown KC kind', { kcs: [{ ...kcs[0], kind: 'concept' }], context: [] }, '$.kcs[0].kind'],
    ['an unknown role', { kcs, context: [{ role: 'teacher', text: 'hi' }] }, '$.context[0].role'],
    ['a previous KC the task lacks', { kcs, context: [], previous: { 'dep:x.y': 0.5 } }, '$.previous["dep:x.y"]'],
    ['a previous known id the task lacks', { kcs, context: [], previous: { known: ['zz'], unknown: [] } }, '$.previous.known[0]'],
    ['a probability out of range', { kcs, context: [], previous: { a: 1.5 } }, '$.previous.a'],
    ['previous_turns past the end', { kcs, context: [], previous_turns: 1 }, '$.previous_turns'],
    ['guess + slip ≥ 1', { kcs, context: [], params: { guess: 0.6, slip: 0.5 } }, '$.params'],
    ['an unknown parameter', { kcs, context: [], params: { learning: 0.1 } }, '$.params.learning'],
    ['a zero threshold', { kcs, context: [], threshold: 0 }, '$.threshold'],
  ];
  for (const [name, payload, path] of cases) {
    const res = await app.inject({ method: 'POST', url: '/trace-knowledge', payload: payload as object });
    t.equal(res.statusCode, 400, name);
    t.ok(
      res.json().issues?.some((i: { path: string }) => i.path === path),
      `${name}: ${JSON.stringify(res.json().issues)}`,
    );
  }
});

t.test('without its sentence encoder, /trace-knowledge answers 503 with the reason; the fit and the rest stay up', async (t) => {
  const app = await testApp({ ENCODER_DIR: '/nonexistent/encoder' });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/trace-knowledge', payload: jax });
  t.equal(res.statusCode, 503);
  t.match(res.json().message, /sentence encoder is unavailable: .*ENCODER_DIR/);
  t.notMatch(res.json().message, /nonexistent/, 'the setting is named, not the path of this machine');
  const ready = (await app.inject({ method: 'GET', url: '/ready' })).json();
  t.match(ready, { ready: true, capabilities: { trace_knowledge: { ready: false, reason: /ENCODER_DIR/ } } });
  t.notMatch(JSON.stringify(ready), /nonexistent/);
  const fit = await app.inject({ method: 'POST', url: '/trace-knowledge/fit', payload: { rows: [{ user: 'u', skill: 's', correct: 1 }] } });
  t.equal(fit.statusCode, 200, 'fitting needs no encoder');
});
