import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { z } from 'zod';
import { ErrorResponseSchema } from '../../contracts/errors.js';
import {
  ScorePlanRequestSchema,
  ScorePlanResponseSchema,
  ScorePlanRewardsResponseSchema,
  type ScorePlanRequest,
  type ScorePlanResponse,
} from '../../contracts/score-plan.js';
import { fingerprint, fingerprintOfParts, IdempotencyConflict } from '../../runs/idempotency.js';
import { scoreInRun, type RunScoring } from '../../runs/score-in-run.js';
import { runDeps, type ScoringContext } from '../context.js';
import { requestSignal } from '../work/deadline.js';
import type { Judgement } from '../work/plan-json.js';
import { pooledScorer } from '../work/plan-scorer.js';
import { InvalidRequest } from '../errors.js';
import { LARGE_JSON_CHARS } from '../json-body.js';
import { JsonBytes, keepLargeJson } from '../raw-body.js';

export const scorePlanRoute =
  (ctx: ScoringContext): FastifyPluginAsyncZod =>
  async (app) => {
    // A large body goes to a worker as bytes: decoding, parsing and validating 13 MB held the main thread ~90 ms.
    const { validatorCompiler } = keepLargeJson(app);
    app.post(
      '/score-plan',
      {
        validatorCompiler,
        schema: {
          operationId: 'scorePlan',
          tags: ['PersonalPlan'],
          summary: 'Verifiable GRPO rewards for rollout groups of sampled plans',
          description:
            'Each completion is parsed, checked and scored on three soft axes (structural, personalization, pedagogy), ' +
            'z-scored within its group, composed with the weights of its run step and the hard gate, and turned into a ' +
            'group-relative advantage. With `step`, the plans count toward that step of the run; a retried request ' +
            '(same run, step and Idempotency-Key) gets the same body back and is not counted again.',
          headers: z.object({
            'idempotency-key': z
              .string()
              .min(1)
              .max(200)
              .optional()
              .describe('Makes a retry of this request return the same body and count once')
              .meta({ examples: ['rank0-step12-batch3'] }),
          }),
          body: ScorePlanRequestSchema,
          response: {
            200: z.union([ScorePlanResponseSchema, ScorePlanRewardsResponseSchema]),
            400: ErrorResponseSchema,
            409: ErrorResponseSchema,
            413: ErrorResponseSchema,
            503: ErrorResponseSchema,
            504: ErrorResponseSchema,
          },
        },
      },
      async (req, reply) => {
        const key = req.headers['idempotency-key'];
        // keepLargeJson: a large body is the client's bytes, whatever the schema's type says.
        const body = req.body as ScorePlanRequest | JsonBytes;
        // A body read on a worker names its run only once read: its place in arrival order is kept meanwhile.
        const arrival = body instanceof JsonBytes ? ctx.turns.arrive() : undefined;
        let out: RunScoring;
        try {
          const { head, groups, fingerprintOf } =
            body instanceof JsonBytes ? await readOnWorker(body, key !== undefined, requestSignal(req, reply, ctx.deadlineMs)) : parsed(body);
          if (groups.plans > ctx.requestLimits.maxPlansPerRequest) {
            throw new InvalidRequest(`${groups.plans} completions in one request, over MAX_PLANS_PER_REQUEST=${ctx.requestLimits.maxPlansPerRequest}`, [
              { path: '$.groups', message: `at most ${ctx.requestLimits.maxPlansPerRequest} completions in all` },
            ]);
          }
          const signal = requestSignal(req, reply, ctx.deadlineMs, head.options?.deadline_ms);
          const idempotency = key === undefined ? undefined : { key, fingerprint: fingerprintOf };
          const scorer = pooledScorer(head, groups, ctx.planLimits, ctx.pool, signal, key !== undefined && head.run_id !== null);
          out = await scoreInRun(head, idempotency, runDeps(ctx), scorer, signal, arrival);
        } finally {
          arrival?.leave();
        }
        if (out.kind === 'conflict') throw new IdempotencyConflict(out.message);
        if (out.kind === 'replay') reply.header('idempotent-replayed', 'true');
        else req.scoreSummary = out.summary;
        // The response is written as JSON (and kept so for replays), byte for byte the same on every retry;
        // a large one is sent a piece per turn of the event loop.
        const serialized = (json: Buffer | Readable) => json as unknown as ScorePlanResponse;
        reply.type('application/json; charset=utf-8');
        if (out.body.reduce((n, p) => n + p.byteLength, 0) < LARGE_JSON_CHARS) return reply.send(serialized(Buffer.concat(out.body)));
        return reply.send(serialized(Readable.from(onePerTurn(out.body), { objectMode: false, highWaterMark: 1 })));
      },
    );

    function parsed(body: ScorePlanRequest) {
      const { groups, ...head } = body;
      const fingerprintOf = (judged: Judgement) => (judged.json ? fingerprintOfParts(body, judged.json) : fingerprint(body));
      return { head, groups: { groups, plans: groups.reduce((n, g) => n + g.completions.length, 0) }, fingerprintOf };
    }

    async function readOnWorker(body: JsonBytes, withKey: boolean, signal: AbortSignal) {
      const input = { json: body.bytes, maxDepth: ctx.maxJsonDepth, workers: Math.max(1, ctx.pool.workers), fingerprint: withKey };
      const read = await ctx.pool.run('readScorePlanTask', input, signal, [body.bytes.buffer]);
      return { head: read.head, groups: { json: read.json, ends: read.ends, plans: read.plans }, fingerprintOf: () => read.fingerprint! };
    }
  };

/**
 * The pieces one per turn of the event loop: a socket on the loopback takes megabytes without pushing back,
 * so a stream would otherwise write them all in one go.
 */
async function* onePerTurn(pieces: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const [i, p] of pieces.entries()) {
    if (i > 0) await nextTurn();
    yield p;
  }
}
