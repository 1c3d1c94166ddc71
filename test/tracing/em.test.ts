import t from 'tap';
import type { BktParams } from '../../src/tracing/bkt.js';
import { emIteration, FIT_DEFAULTS, fitBySkill, fitSkill, groupBySkill, logLikelihood } from '../../src/tracing/em.js';
import { mulberry32 } from '../../src/common/rng.js';

const FIELDS = ['prior', 'learn', 'guess', 'slip', 'forget'] as const;

/** Draws learners from the BKT generative model: initial state, then answer, then transition, per step. */
function simulate(p: BktParams, learners: number, minLen: number, maxLen: number, seed: number): boolean[][] {
  const rng = mulberry32(seed);
  const out: boolean[][] = [];
  for (let i = 0; i < learners; i++) {
    const len = minLen + Math.floor(rng() * (maxLen - minLen + 1));
    let known = rng() < p.prior;
    const seq: boolean[] = [];
    for (let s = 0; s < len; s++) {
      seq.push(known ? rng() >= p.slip : rng() < p.guess);
      known = known ? rng() >= p.forget : rng() < p.learn;
    }
    out.push(seq);
  }
  return out;
}

/**
 * Reference E- and M-step by enumerating every hidden path (2^T per sequence): expected counts are the
 * path-probability-weighted counts. Only feasible for tiny data, which is the point: it shares no code with em.ts.
 */
function bruteForceIteration(seqs: boolean[][], p: BktParams): { logLikelihood: number; next: BktParams } {
  let ll = 0;
  const c = { init: 0, fromU: 0, learned: 0, fromK: 0, forgot: 0, uTotal: 0, uCorrect: 0, kTotal: 0, kWrong: 0 };
  for (const seq of seqs) {
    const T = seq.length;
    const paths: { w: number; states: boolean[] }[] = [];
    for (let mask = 0; mask < 1 << T; mask++) {
      const states = Array.from({ length: T }, (_, i) => ((mask >> i) & 1) === 1);
      let w = states[0] ? p.prior : 1 - p.prior;
      states.forEach((known, i) => {
        if (i > 0) {
          const prev = states[i - 1];
          w *= prev ? (known ? 1 - p.forget : p.forget) : known ? p.learn : 1 - p.learn;
        }
        w *= known ? (seq[i] ? 1 - p.slip : p.slip) : seq[i] ? p.guess : 1 - p.guess;
      });
      paths.push({ w, states });
    }
    const z = paths.reduce((s, x) => s + x.w, 0);
    ll += Math.log(z);
    for (const { w, states } of paths) {
      const q = w / z;
      if (states[0]) c.init += q;
      states.forEach((known, i) => {
        if (known) {
          c.kTotal += q;
          if (!seq[i]) c.kWrong += q;
        } else {
          c.uTotal += q;
          if (seq[i]) c.uCorrect += q;
        }
        if (i + 1 < T) {
          if (known) {
            c.fromK += q;
            if (!states[i + 1]) c.forgot += q;
          } else {
            c.fromU += q;
            if (states[i + 1]) c.learned += q;
          }
        }
      });
    }
  }
  return {
    logLikelihood: ll,
    next: {
      prior: c.init / seqs.length,
      learn: c.learned / c.fromU,
      forget: c.forgot / c.fromK,
      guess: c.uCorrect / c.uTotal,
      slip: c.kWrong / c.kTotal,
    },
  };
}

t.test('one EM iteration equals brute-force enumeration of hidden paths', async (t) => {
  const seqs = [[true, false, true, true], [false, false, true], [false], [true, true], [false, true, false, true]];
  const start: BktParams = { prior: 0.35, learn: 0.2, guess: 0.25, slip: 0.15, forget: 0.1 };
  const wide = { maxGuess: 0.49, maxSlip: 0.49 };
  const ref = bruteForceIteration(seqs, start);
  const got = emIteration(seqs, start, { ...wide, forgets: true });
  t.ok(Math.abs(got.logLikelihood - ref.logLikelihood) < 1e-12, `log-likelihood ${got.logLikelihood} vs ${ref.logLikelihood}`);
  t.ok(Math.abs(logLikelihood(seqs, start) - ref.logLikelihood) < 1e-12, 'forward-filter log-likelihood agrees');
  for (const f of FIELDS) {
    t.ok(ref.next[f] > 1e-6 && ref.next[f] < 0.49, `${f} inside bounds, so no clamping: ${ref.next[f]}`);
    t.ok(Math.abs(got.next[f] - ref.next[f]) < 1e-12, `${f}: ${got.next[f]} vs ${ref.next[f]}`);
  }
  // Without forgets the forget parameter is pinned at 0 and the rest follow the same counts.
  const noForget = { ...start, forget: 0 };
  const ref0 = bruteForceIteration(seqs, noForget);
  const got0 = emIteration(seqs, noForget, wide);
  t.equal(got0.next.forget, 0);
  for (const f of ['prior', 'learn', 'guess', 'slip'] as const) {
    t.ok(Math.abs(got0.next[f] - ref0.next[f]) < 1e-12, `no-forget ${f}: ${got0.next[f]} vs ${ref0.next[f]}`);
  }
});

const TRUTHS: BktParams[] = [
  { prior: 0.3, learn: 0.15, guess: 0.2, slip: 0.1, forget: 0 },
  { prior: 0.6, learn: 0.05, guess: 0.25, slip: 0.05, forget: 0 },
  { prior: 0.1, learn: 0.3, guess: 0.1, slip: 0.2, forget: 0 },
];

t.test('EM recovers generating parameters within ±0.05 from 2,000 synthetic learners', async (t) => {
  for (const [i, truth] of TRUTHS.entries()) {
    const seqs = simulate(truth, 2000, 20, 30, 1000 + i);
    const fit = fitSkill(seqs, { seed: 7 });
    const errors = FIELDS.map((f) => `${f} ${(fit.params[f] - truth[f]).toFixed(4)}`).join(', ');
    t.comment(`set ${i}: ${errors}; iterations ${fit.iterations}`);
    for (const f of ['prior', 'learn', 'guess', 'slip'] as const) {
      t.ok(Math.abs(fit.params[f] - truth[f]) <= 0.05, `set ${i} ${f}: fitted ${fit.params[f]} vs true ${truth[f]}`);
    }
    t.equal(fit.params.forget, 0, 'forget stays 0 without forgets');
    t.equal(fit.sequences, 2000);
    t.equal(
      fit.observations,
      seqs.reduce((s, x) => s + x.length, 0),
    );
    t.equal(fit.restarts, FIT_DEFAULTS.restarts);
    // The optimum is at least as likely as the truth (which is one point EM could have found).
    t.ok(fit.logLikelihood >= logLikelihood(seqs, truth), 'fit at least as likely as the truth');
    t.ok(Math.abs(fit.logLikelihood - logLikelihood(seqs, fit.params)) < 1e-6, 'reported LL scores the returned params');
  }
});

t.test('EM with forgets recovers a forgetting rate', async (t) => {
  const truth: BktParams = { prior: 0.4, learn: 0.2, guess: 0.15, slip: 0.1, forget: 0.05 };
  const seqs = simulate(truth, 2000, 20, 30, 77);
  const fit = fitSkill(seqs, { forgets: true, seed: 3 });
  t.comment(`forgets: ${FIELDS.map((f) => `${f} ${(fit.params[f] - truth[f]).toFixed(4)}`).join(', ')}`);
  for (const f of FIELDS) {
    t.ok(Math.abs(fit.params[f] - truth[f]) <= 0.05, `${f}: fitted ${fit.params[f]} vs true ${truth[f]}`);
  }
});

t.test('log-likelihood never decreases across EM iterations of any restart', async (t) => {
  const seqs = simulate(TRUTHS[0]!, 500, 5, 40, 5);
  for (const forgets of [false, true]) {
    const fit = fitSkill(seqs, { history: true, restarts: 8, seed: 11, tolerance: 0, maxIterations: 60, forgets });
    t.equal(fit.history?.length, 8);
    for (const [r, h] of (fit.history ?? []).entries()) {
      const drops = h.slice(1).filter((ll, i) => ll < h[i]! - 1e-9 * Math.abs(h[i]!));
      t.same(drops, [], `restart ${r} (forgets ${forgets}) is monotone over ${h.length} iterations`);
    }
    const finals = (fit.history ?? []).map((h) => h.at(-1)!);
    t.equal(fit.logLikelihood, Math.max(...finals), 'the best restart is kept');
  }
  // Bounds are respected even when the data push guess above them; clamping keeps EM monotone too.
  const guessy = simulate({ prior: 0.2, learn: 0.1, guess: 0.45, slip: 0.05, forget: 0 }, 500, 10, 20, 9);
  const bounded = fitSkill(guessy, { history: true, tolerance: 0, maxIterations: 40 });
  t.ok(bounded.params.guess <= 0.3 && bounded.params.slip <= 0.3, `bounded: ${JSON.stringify(bounded.params)}`);
  for (const h of bounded.history ?? []) t.ok(h.every((ll, i) => i === 0 || ll >= h[i - 1]! - 1e-9 * Math.abs(ll)));
  const tight = fitSkill(guessy, { maxGuess: 0.1, maxSlip: 0.02 });
  t.ok(tight.params.guess <= 0.1 && tight.params.slip <= 0.02, 'custom bounds honoured');
});

t.test('stopping: tolerance and iteration budget', async (t) => {
  const seqs = simulate(TRUTHS[1]!, 300, 10, 20, 21);
  const capped = fitSkill(seqs, { history: true, maxIterations: 3 });
  t.ok(
    capped.history!.every((h) => h.length === 3),
    'budget of 3 E-steps',
  );
  t.equal(capped.iterations, 3);
  const loose = fitSkill(seqs, { history: true, tolerance: 1 });
  for (const h of loose.history!) {
    if (h.length < FIT_DEFAULTS.maxIterations) t.ok(h.at(-1)! - h.at(-2)! < 1, 'stopped on an improvement < tolerance');
    for (let i = 1; i < h.length - 1; i++) t.ok(h[i]! - h[i - 1]! >= 1, 'kept going while improving >= tolerance');
  }
});

t.test('restarts are deterministic for a fixed seed', async (t) => {
  const seqs = simulate(TRUTHS[2]!, 400, 10, 25, 31);
  const a = fitSkill(seqs, { seed: 42, history: true });
  const b = fitSkill(seqs, { seed: 42, history: true });
  t.same(a, b, 'same seed, identical fit and history');
  const c = fitSkill(seqs, { seed: 43, history: true });
  t.not(c.history![0]![0], a.history![0]![0], 'another seed starts elsewhere');
});

// Its time, linear in the answers, is measured by bench/timing-claims.ts.
t.test('fitBySkill groups by skill then user and orders answers', async (t) => {
  const rows = [
    { user: 'a', skill: 'frac', correct: 0 as const, order: 3 },
    { user: 'b', skill: 'frac', correct: true, order: 1 },
    { user: 'a', skill: 'dec', correct: 1 as const, order: 2 },
    { user: 'a', skill: 'frac', correct: 1 as const, order: 1 },
    { user: 'a', skill: 'frac', correct: false, order: 3 }, // ties keep input order
    { user: 'b', skill: 'frac', correct: false, order: 0 },
  ];
  t.same(
    [...groupBySkill(rows)],
    [
      [
        'frac',
        [
          [true, false, false],
          [false, true],
        ],
      ],
      ['dec', [[true]]],
    ],
  );
  const unordered = rows.map(({ order: _order, ...rest }) => rest);
  t.same(
    groupBySkill(unordered).get('frac'),
    [
      [false, true, false],
      [true, false],
    ],
    'input order without order',
  );

  const fits = fitBySkill(rows, { restarts: 2 });
  t.same([...fits.keys()], ['frac', 'dec']);
  t.same(
    fits.get('frac'),
    fitSkill(
      [
        [true, false, false],
        [false, true],
      ],
      { restarts: 2 },
    ),
    'same as fitSkill',
  );
  t.equal(fits.get('dec')?.observations, 1);
});

t.test('bad inputs are rejected', async (t) => {
  t.throws(() => fitSkill([]), { name: 'RangeError', message: /no sequences/ });
  t.throws(() => fitSkill([[]]), { name: 'RangeError', message: /sequence 0 is empty/ });
  t.throws(() => fitSkill([[true], []]), { name: 'RangeError', message: /sequence 1 is empty/ });
  t.throws(() => fitSkill([[true, 1 as unknown as boolean]]), { name: 'RangeError', message: /not a boolean/ });
  t.throws(() => fitSkill([[true]], { restarts: 0 }), { name: 'RangeError', message: /restarts/ });
  t.throws(() => fitSkill([[true]], { maxIterations: 0.5 }), { name: 'RangeError', message: /maxIterations/ });
  t.throws(() => fitSkill([[true]], { tolerance: -1 }), { name: 'RangeError', message: /tolerance/ });
  t.throws(() => fitSkill([[true]], { maxGuess: 0.6, maxSlip: 0.5 }), { name: 'RangeError', message: /maxGuess \+ maxSlip/ });
  t.throws(() => fitSkill([[true]], { maxSlip: 1.2 }), { name: 'RangeError', message: /maxSlip/ });
  t.throws(() => emIteration([[true]], { prior: 2, learn: 0.1, guess: 0.1, slip: 0.1, forget: 0 }), {
    name: 'RangeError',
    message: /prior/,
  });
  t.throws(() => logLikelihood([[true]], { prior: 0.5, learn: 0.1, guess: 0.6, slip: 0.5, forget: 0 }), {
    name: 'RangeError',
    message: /guess \+ slip/,
  });
  t.equal(fitBySkill([]).size, 0, 'no rows: no skills to fit');
  t.throws(() => fitBySkill([{ user: 'u', skill: 's', correct: 2 as 1 }]), { name: 'RangeError', message: /row 0/ });
  t.throws(
    () =>
      fitBySkill([
        { user: 'u', skill: 's', correct: 1, order: 1 },
        { user: 'u', skill: 's', correct: 0 },
      ]),
    { name: 'RangeError', message: /order/ },
  );
});
