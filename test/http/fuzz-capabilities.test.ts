import fc from 'fast-check';
import t from 'tap';
import { testApp } from '../support/app.js';

// The turn verifier, knowledge tracing and evaluation endpoints: structurally plausible but random
// requests get a 200 or a 4xx naming the field, never a 5xx.
const BYO = new URL('../fixtures/tiny-cross-encoder', import.meta.url).pathname;
const app = await testApp({ VERIFIER_DIR: BYO });
t.teardown(() => app.close());

const text = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.constantFrom('', ' ', '`x_y()`', "I don't know what `foo.bar` does?", 'finished', '```py\nfoo.bar()\n```', '\u0000\ud83d\ude00'),
);
const turn = fc.record({ role: fc.oneof(fc.constantFrom('tutor', 'student', 'teacher', 'learner'), fc.string({ maxLength: 8 })), text });
const anyValue = fc.jsonValue({ maxDepth: 3 });
const validTurn = fc.record({ role: fc.constantFrom('tutor', 'student'), text });
const nonEmpty = fc.string({ minLength: 1, maxLength: 60 });
const bodies: Record<string, fc.Arbitrary<unknown>> = {
  '/verify-turn': fc.oneof(
    fc.record({
      task: fc.record({ description: nonEmpty }),
      context: fc.array(validTurn, { maxLength: 6 }),
      candidates: fc.array(nonEmpty, { minLength: 1, maxLength: 6 }),
    }),
    fc.record(
      {
        task: fc.oneof(fc.record({ description: text, solution_steps: fc.array(text, { maxLength: 3 }) }), anyValue),
        context: fc.array(turn, { maxLength: 5 }),
        candidates: fc.array(text, { maxLength: 6 }),
        options: fc.record({ top_k: fc.integer({ min: -2, max: 8 }) }),
      },
      { requiredKeys: [] },
    ),
  ),
  '/trace-knowledge': fc.oneof(
    fc.record({
      kcs: fc
        .array(fc.record({ text: nonEmpty, kind: fc.constantFrom('dependency', 'step') }), { minLength: 1, maxLength: 6 })
        .map((ks) => ks.map((k, i) => ({ id: `k${i}`, ...k }))),
      context: fc.array(validTurn, { maxLength: 8 }),
    }),
    fc.record(
      {
        task: fc.record(
          { dependencies: fc.oneof(text, fc.array(text, { maxLength: 3 })), solution_steps: fc.oneof(text, fc.array(text, { maxLength: 3 })) },
          { requiredKeys: [] },
        ),
        kcs: fc.array(fc.record({ id: fc.string({ maxLength: 4 }), text, kind: fc.constantFrom('dependency', 'step', 'x') }), { maxLength: 4 }),
        context: fc.array(turn, { maxLength: 6 }),
        previous: fc.oneof(
          fc.dictionary(fc.string({ maxLength: 6 }), fc.double({ min: -1, max: 2, noNaN: true })),
          fc.record({ known: fc.array(fc.string({ maxLength: 6 })), unknown: fc.array(fc.string({ maxLength: 6 })) }),
        ),
        previous_turns: fc.integer({ min: -1, max: 8 }),
        params: fc.record(
          {
            prior: fc.double({ min: -0.5, max: 1.5, noNaN: true }),
            guess: fc.double({ min: 0, max: 1, noNaN: true }),
            slip: fc.double({ min: 0, max: 1, noNaN: true }),
          },
          { requiredKeys: [] },
        ),
        threshold: fc.double({ min: -1, max: 2, noNaN: true }),
      },
      { requiredKeys: [] },
    ),
  ),
  '/trace-knowledge/fit': fc.oneof(
    fc.record({
      rows: fc.array(fc.record({ user: fc.constantFrom('u1', 'u2', 'u3'), skill: fc.constantFrom('a', 'b'), correct: fc.boolean() }), {
        minLength: 1,
        maxLength: 40,
      }),
      options: fc.record({ restarts: fc.integer({ min: 1, max: 2 }) }),
    }),
    fc.record(
      {
        rows: fc.array(
          fc.record(
            {
              user: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()),
              skill: fc.constantFrom('a', 'b'),
              correct: fc.oneof(fc.boolean(), fc.constantFrom(0, 1, 2)),
              order: fc.integer({ min: 0, max: 5 }),
            },
            { requiredKeys: ['user', 'skill', 'correct'] },
          ),
          { maxLength: 30 },
        ),
        options: fc.record(
          {
            restarts: fc.integer({ min: 0, max: 3 }),
            max_guess: fc.double({ min: 0, max: 1, noNaN: true }),
            max_slip: fc.double({ min: 0, max: 1, noNaN: true }),
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    ),
  ),
  '/evaluate-dialogue': fc.oneof(
    fc.record(
      { messages: fc.array(validTurn, { minLength: 1, maxLength: 8 }), reference: fc.oneof(text, fc.array(text, { minLength: 1, maxLength: 3 })) },
      { requiredKeys: ['messages'] },
    ),
    fc.record(
      {
        messages: fc.array(turn, { maxLength: 6 }),
        reference: fc.oneof(text, fc.array(text, { maxLength: 3 })),
        options: fc.record(
          {
            smooth: fc.constantFrom('exp', 'floor', 'add-k', 'none', 'x'),
            dict: fc.record(
              {
                pass_at_k: fc.array(fc.record({ n: fc.integer({ min: 0, max: 5 }), c: fc.integer({ min: 0, max: 6 }), k: fc.integer({ min: 0, max: 6 }) }), {
                  maxLength: 2,
                }),
                outcome: fc.record({ pre: fc.double({ noNaN: true }), post: fc.double({ noNaN: true }) }),
              },
              { requiredKeys: [] },
            ),
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    ),
  ),
  '/evaluate-text': fc.record(
    { hypothesis: text, references: fc.array(text, { maxLength: 3 }), metrics: fc.array(fc.constantFrom('bleu', 'rouge', 'meteor', 'x'), { maxLength: 3 }) },
    { requiredKeys: [] },
  ),
  '/evaluate-text/corpus': fc.record(
    { pairs: fc.array(fc.record({ hypothesis: text, references: fc.array(text, { minLength: 1, maxLength: 2 }) }), { maxLength: 4 }) },
    { requiredKeys: [] },
  ),
  '/dialogue/next': fc.oneof(
    fc.record({
      state: fc.record({
        current_step: fc.nat(4),
        steps_total: fc.integer({ min: 1, max: 5 }),
        needs_clarification: fc.boolean(),
        finished: fc.boolean(),
        message_count: fc.nat(9),
        max_interactions: fc.integer({ min: 1, max: 12 }),
      }),
      last: fc.record({ role: fc.constantFrom('teacher', 'learner', 'tutor', 'student'), text }),
    }),
    fc.record(
      {
        state: fc.record(
          {
            current_step: fc.integer({ min: -1, max: 4 }),
            steps_total: fc.integer({ min: 0, max: 4 }),
            needs_clarification: fc.boolean(),
            finished: fc.boolean(),
            message_count: fc.integer({ min: 0, max: 9 }),
            max_interactions: fc.integer({ min: 0, max: 9 }),
          },
          { requiredKeys: [] },
        ),
        last: turn,
      },
      { requiredKeys: [] },
    ),
  ),
  '/evaluate-plan': fc.record(
    {
      plans: fc.array(fc.record({ plan: fc.oneof(text, anyValue) }), { maxLength: 3 }),
      gold: fc.oneof(text, anyValue),
      options: fc.record({ kappa: fc.double({ min: -1, max: 5, noNaN: true }) }, { requiredKeys: [] }),
    },
    { requiredKeys: [] },
  ),
};

for (const [url, body] of Object.entries(bodies)) {
  t.test(`${url}: random requests are answered with 200 or a 4xx naming the field, never a 5xx`, async (t) => {
    let ok = 0;
    let rejected = 0;
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        const res = await app.inject({ method: 'POST', url, payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } });
        if (res.statusCode === 200) ok++;
        else if (res.statusCode === 400 && res.json().issues?.length > 0) rejected++;
        else return false;
        return true;
      }),
      { numRuns: 60, seed: 20261129 }, // fixed: the "both paths exercised" count must not depend on the draw
    );
    t.equal(ok + rejected, 60);
    t.ok(ok >= 10 && rejected >= 10, `both paths exercised: ${ok} answered, ${rejected} refused with the field`);
  });
}
