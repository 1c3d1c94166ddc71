import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { z } from 'zod';
import { ErrorResponseSchema } from '../../contracts/errors.js';
import { IdempotencyHeadersSchema } from '../../contracts/idempotency.js';
import {
  ScorePlanRequestSchema,
  ScorePlanResponseSchema,
  ScorePlanRewardsResponseSchema,
  type ScorePlanRequest,
  type ScorePlanResponse,
} from '../../contracts/score-plan.js';
import { keepLargeJson } from '../../request-body/fastify-parsers.js';
import { JsonBytes, LARGE_JSON_CHARS } from '../../request-body/json.js';
import type { Service } from '../../service/context.js';
import { scorePlan } from '../../service/score-plan/score-plan.js';
import { requestSignal } from '../deadline.js';

export const scorePlanRoute =
  (ctx: Service): FastifyPluginAsyncZod =>
  async (app) => {
    // A large body goes to a worker as bytes: decoding, parsing and validating one held the main thread for one long stretch.
    const { validatorCompiler } = keepLargeJson(app);
    app.post(
      '/score-plan',
      {
        config: { compute: true },
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
          headers: IdempotencyHeadersSchema,
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
        // keepLargeJson: a large body is the client's bytes, whatever the schema's type says.
        const body = req.body as ScorePlanRequest | JsonBytes;
        let out: Awaited<ReturnType<typeof scorePlan>>;
        try {
          out = await scorePlan(
            ctx,
            body,
            req.headers['idempotency-key'],
            req.bodySha256,
            (bodyMs) => requestSignal(req, reply, ctx.deadlineMs, bodyMs),
            req.timings,
          );
        } finally {
          // Judged or failed, the request reads its body no more. A part a worker was judging when another
          // failed may still read it, into an answer nobody waits for.
          if (body instanceof JsonBytes) body.release();
        }
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
