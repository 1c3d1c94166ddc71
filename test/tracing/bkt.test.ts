import t, { type Test } from 'tap';
import { DEFAULT_PARAMS } from '../../src/contracts/trace-knowledge.js';
import { type BktParams, pCorrect, posterior, trace, transition, validateParams } from '../../src/tracing/bkt.js';

const P: BktParams = { prior: 0.3, learn: 0.2, guess: 0.1, slip: 0.1, forget: 0 };

function close(t: Test, actual: number, expected: number, msg: string, tol = 1e-12): void {
  t.ok(Math.abs(actual - expected) <= tol, `${msg}: ${actual} ≈ ${expected}`);
}

t.test('the three update equations on one step, by hand', async (t) => {
  // P(correct) = 0.3·0.9 + 0.7·0.1 = 0.27 + 0.07 = 0.34
  close(t, pCorrect(0.3, P), 0.34, 'pCorrect');
  // correct: 0.27 / 0.34 = 27/34
  close(t, posterior(0.3, true, P), 27 / 34, 'posterior after correct');
  // incorrect: 0.3·0.1 / (0.3·0.1 + 0.7·0.9) = 0.03 / 0.66 = 1/22
  close(t, posterior(0.3, false, P), 1 / 22, 'posterior after incorrect');
  // 27/34 + (7/34)·0.2 = 28.4/34 = 71/85
  close(t, transition(27 / 34, P), 71 / 85, 'transition');
  // with forgetting 0.1: (27/34)·0.9 + (7/34)·0.2 = 25.7/34 = 257/340
  close(t, transition(27 / 34, { ...P, forget: 0.1 }), 257 / 340, 'transition with forgetting');
});

t.test('trace of [1, 0, 1] matches the hand computation', async (t) => {
  const steps = trace([true, false, true], P);
  t.equal(steps.length, 3);
  const [s1, s2, s3] = steps;
  // Step 1: L = 0.3, P(c) = 0.34, post = 27/34, next L = 71/85.
  close(t, s1!.before, 0.3, 'step 1 before');
  close(t, s1!.pCorrect, 0.34, 'step 1 pCorrect');
  close(t, s1!.after, 71 / 85, 'step 1 after');
  // Step 2: P(c) = (71·0.9 + 14·0.1)/85 = 65.3/85 = 653/850;
  // incorrect: post = 7.1 / (7.1 + 14·0.9) = 7.1/19.7 = 71/197; next L = (71 + 126·0.2)/197 = 96.2/197 = 481/985.
  close(t, s2!.before, 71 / 85, 'step 2 before');
  close(t, s2!.pCorrect, 653 / 850, 'step 2 pCorrect');
  close(t, s2!.after, 481 / 985, 'step 2 after');
  // Step 3: P(c) = (481·0.9 + 504·0.1)/985 = 483.3/985 = 4833/9850;
  // correct: post = 432.9/483.3 = 481/537; next L = (481 + 56·0.2)/537 = 492.2/537 = 2461/2685.
  close(t, s3!.before, 481 / 985, 'step 3 before');
  close(t, s3!.pCorrect, 4833 / 9850, 'step 3 pCorrect');
  close(t, s3!.after, 2461 / 2685, 'step 3 after');
});

t.test('trace agrees with step-by-step posterior and transition', async (t) => {
  const obs = [false, false, true, true, false, true, true, true, false, true];
  for (const p of [P, { ...P, forget: 0.15 }, DEFAULT_PARAMS]) {
    let L = p.prior;
    const steps = trace(obs, p);
    obs.forEach((correct, i) => {
      const step = steps[i]!;
      t.equal(step.before, L, `before ${i}`);
      t.equal(step.pCorrect, pCorrect(L, p), `pCorrect ${i}`);
      L = transition(posterior(L, correct, p), p);
      t.equal(step.after, L, `after ${i}`);
    });
  }
  t.same(trace([], P), [], 'no answers, no steps');
});

t.test('forgetting lowers mastery, and without it mastery never drops from a transition', async (t) => {
  const allCorrect = Array.from({ length: 30 }, () => true);
  const noForget = trace(allCorrect, P);
  const forget = trace(allCorrect, { ...P, forget: 0.2 });
  // Fixed point of L ← post(L)(1 − F) + (1 − post(L))T under all-correct answers is below 1 when F > 0.
  t.ok(noForget.at(-1)!.after > 0.999999, `no forgetting converges to 1: ${noForget.at(-1)!.after}`);
  t.ok(forget.at(-1)!.after < 0.85, `forgetting caps mastery: ${forget.at(-1)!.after}`);
  for (let i = 0; i < 30; i++) t.ok(forget[i]!.after < noForget[i]!.after, `forgetting is lower at ${i}`);
  // Without forgetting the transition only adds mass: L' − post = (1 − post)T ≥ 0.
  t.ok(transition(0.4, P) >= 0.4);
  // With forgetting a certain learner can slide back: 1·(1 − 0.2) = 0.8.
  close(t, transition(1, { ...P, forget: 0.2 }), 0.8, 'forget from certainty');
});

t.test('a correct answer is evidence of knowing, an incorrect one against', async (t) => {
  for (const L of [0.01, 0.3, 0.5, 0.9]) {
    t.ok(posterior(L, true, P) > L, `correct raises ${L}`);
    t.ok(posterior(L, false, P) < L, `incorrect lowers ${L}`);
  }
  // An impossible answer (correct with L = 0 and guess = 0) leaves L unchanged rather than NaN.
  t.equal(posterior(0, true, { ...P, guess: 0 }), 0);
});

t.test('params are validated with the field named', async (t) => {
  t.doesNotThrow(() => validateParams(DEFAULT_PARAMS), 'defaults are valid');
  for (const field of ['prior', 'learn', 'guess', 'slip', 'forget'] as const) {
    for (const bad of [-0.01, 1.01, Number.NaN]) {
      t.throws(() => trace([true], { ...P, [field]: bad }), { name: 'RangeError', message: `BKT parameter ${field} must be` }, `${field}=${bad}`);
      t.throws(() => validateParams({ ...P, [field]: bad }), { name: 'RangeError', message: new RegExp(`\\b${field}\\b`) });
    }
  }
  t.throws(() => validateParams({ ...P, guess: 0.5, slip: 0.5 }), { name: 'RangeError', message: /guess \+ slip/ });
  t.throws(() => validateParams({ ...P, guess: 0.7, slip: 0.4 }), { name: 'RangeError', message: /guess \+ slip/ });
  t.doesNotThrow(() => validateParams({ ...P, guess: 0, slip: 0, prior: 1, learn: 0, forget: 1 }), 'edges allowed');
});

t.test('DEFAULT_PARAMS are the means of pyBKT’s random initial model', async (t) => {
  t.same({ ...DEFAULT_PARAMS }, { prior: 0.5, learn: 0.2, guess: 0.2, slip: 0.15, forget: 0 });
  t.ok(Object.isFrozen(DEFAULT_PARAMS));
});
