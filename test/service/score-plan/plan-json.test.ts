import { DEFAULT_PLAN_LIMITS } from '../../../src/plan/parse.js';
import t from 'tap';
import { benchBatch } from '../../../bench/realistic-plans.js';
import { EXAMPLE_PROFILE } from '../../../src/contracts/examples.js';
import type { ScorePlanRequest } from '../../../src/contracts/score-plan.js';
import { evaluateGroupsTask } from '../../../src/service/tasks/index.js';
import { compose, judgementOf, responseJson } from '../../../src/service/score-plan/plan-json.js';
import { unwrap } from '../../../src/service/pool/pool.js';
import { localScorer } from '../../support/local-scorer.js';
import { resolveOptions, DEFAULT_SCORING } from '../../../src/scoring/score-groups.js';

const limits = DEFAULT_PLAN_LIMITS;
const run = { id: 'r,"detail":0}', step: 3, status: 'open' as const, counted: true, weights: { struct: 0.5, pers: 0.25, ped: 0.25 }, finalized: [] };

// Client strings that look like the marker the assembly replaces must come out as they went in.
const tricky: ScorePlanRequest = {
  groups: [
    {
      id: ',"detail":0}',
      query: 'q',
      profile: { ...EXAMPLE_PROFILE, tags: [',"detail":1}', '"detail":2'] },
      completions: ['{"agents": ",\\"detail\\":0}"}', 'not a plan ,"detail":3}', { steps: [] }],
    },
  ],
};

t.test('the response written from worker fragments is byte for byte the reference JSON.stringify', async (t) => {
  for (const [name, req] of <[string, ScorePlanRequest][]>[
    ['realistic 64×8', { ...benchBatch(64, 8), options: { strict: true } }],
    ['client strings shaped like the marker', tricky],
  ]) {
    const options = resolveOptions(req.options, DEFAULT_SCORING);
    const gate = { strict: options.strict, lambda_hard: options.lambda_hard, reward_profile: options.reward_profile };
    const judged = judgementOf([unwrap(await evaluateGroupsTask({ groups: req.groups, palette: req.palette, limits, gate }, () => false))]);
    let pauses = 0;
    const pieces = await responseJson(compose(judged, options, run.weights), run, async () => pauses++);
    const viaFragments = Buffer.concat(pieces);
    const reference = localScorer(req, limits);
    const expected = Buffer.concat(await reference.compose(await reference.judge(gate), options, run.weights).write(run));
    t.ok(viaFragments.equals(expected), `${name}: ${viaFragments.length} bytes in ${pieces.length} pieces, ${pauses} pauses`);
    t.ok(judged.groups.every((g) => g.plans.every((p) => p.detail[1] > p.detail[0] && p.detail[1] <= g.details.length)));
  }
});

t.test('detail: "rewards": the workers write no plan detail, and the response is the reference one', async (t) => {
  const req: ScorePlanRequest = { ...benchBatch(8, 8), options: { detail: 'rewards' } };
  const options = resolveOptions(req.options, DEFAULT_SCORING);
  const gate = { strict: options.strict, lambda_hard: options.lambda_hard, reward_profile: options.reward_profile };
  const full = unwrap(await evaluateGroupsTask({ groups: req.groups, palette: req.palette, limits, gate }, () => false));
  const lean = unwrap(await evaluateGroupsTask({ groups: req.groups, palette: req.palette, limits, gate, details: false }, () => false));
  t.ok(full.details.byteLength > 0, `the details of 64 plans: ${full.details.byteLength} bytes`);
  t.equal(lean.details.byteLength, 0, 'none written when the response leaves them out');
  const written = Buffer.concat(await responseJson(compose(judgementOf([lean]), options, run.weights, false), run));
  const reference = localScorer(req, limits);
  const expected = Buffer.concat(await reference.compose(await reference.judge(gate), options, run.weights).write(run));
  t.ok(written.equals(expected), `the same ${written.length} bytes as the reference`);
});
