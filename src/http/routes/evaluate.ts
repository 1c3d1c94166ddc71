import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorResponseSchema } from '../../contracts/errors.js';
import {
  EvaluateDialogueRequestSchema,
  EvaluateDialogueResponseSchema,
  EvaluateTextCorpusRequestSchema,
  EvaluateTextCorpusResponseSchema,
  EvaluateTextRequestSchema,
  EvaluateTextResponseSchema,
} from '../../contracts/evaluate.js';
import { EvaluatePlanRequestSchema, EvaluatePlanResponseSchema } from '../../contracts/evaluate-plan.js';
import { judgeInput } from '../../metrics/evaluate-dialogue.js';
import { judgeConversation } from '../../metrics/judge/client.js';
import type { TextMetric } from '../../contracts/evaluate.js';
import type { ScoringContext } from '../context.js';
import { InvalidRequest } from '../errors.js';
import { untilAborted } from '../../runs/turns.js';
import { requestSignal } from '../work/deadline.js';
import { TaskRefused } from '../work/pool.js';

const ALL: TextMetric[] = ['bleu', 'rouge', 'meteor'];

/** Waits for `work`, turning a text the metrics refuse into a 400 at `path`. */
async function refusingTooLong<T>(path: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (e) {
    if (e instanceof TaskRefused && e.failure === 'text-too-long')
      throw new InvalidRequest(`texts too long to score: ${e.message}`, [{ path, message: e.message }]);
    throw e;
  }
}
const ms = (started: number) => Number((performance.now() - started).toFixed(2));
const errors = { 400: ErrorResponseSchema, 413: ErrorResponseSchema, 503: ErrorResponseSchema, 504: ErrorResponseSchema };

export const evaluateRoutes =
  (ctx: ScoringContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/evaluate-text',
      {
        schema: {
          operationId: 'evaluateText',
          tags: ['WikiHowAgent'],
          summary: 'BLEU (sacrebleu), ROUGE-1/2/L/Lsum (rouge-score, with and without stemming) and METEOR (NLTK) of one hypothesis',
          body: EvaluateTextRequestSchema,
          response: { 200: EvaluateTextResponseSchema, ...errors },
        },
      },
      async (req, reply) => {
        const started = performance.now();
        const signal = requestSignal(req, reply, ctx.deadlineMs, req.body.options?.deadline_ms);
        const scores = await refusingTooLong('$.hypothesis', ctx.pool.run('textScoresTask', { body: req.body, metrics: req.body.metrics ?? ALL }, signal));
        return { ...scores, latency_ms: ms(started) };
      },
    );
    app.post(
      '/evaluate-text/corpus',
      {
        schema: {
          operationId: 'evaluateTextCorpus',
          tags: ['WikiHowAgent'],
          summary: 'Corpus BLEU over many pairs (sacrebleu corpus_bleu), with ROUGE and METEOR averaged over the pairs',
          body: EvaluateTextCorpusRequestSchema,
          response: { 200: EvaluateTextCorpusResponseSchema, ...errors },
        },
      },
      async (req, reply) => {
        const started = performance.now();
        const { pairs, metrics = ALL } = req.body;
        const signal = requestSignal(req, reply, ctx.deadlineMs, req.body.options?.deadline_ms);
        const width = pairs[0]!.references.length;
        const uneven = pairs.findIndex((p) => p.references.length !== width);
        if (uneven >= 0 && metrics.includes('bleu')) {
          throw new InvalidRequest('corpus BLEU needs the same number of references for every pair', [
            { path: `$.pairs[${uneven}].references`, message: `has ${pairs[uneven]!.references.length} references, pair 0 has ${width}` },
          ]);
        }
        const scores = await refusingTooLong('$.pairs', ctx.pool.run('corpusScoresTask', { body: req.body, metrics }, signal));
        return { pairs: pairs.length, ...scores, latency_ms: ms(started) };
      },
    );
    app.post(
      '/evaluate-dialogue',
      {
        schema: {
          operationId: 'evaluateDialogue',
          tags: ['WikiHowAgent'],
          summary: 'Pedagogic-quality metrics of a tutoring conversation against its reference tutorial',
          description:
            'Question, Completion and Diversity (WikiHowAgent); BLEU, ROUGE, METEOR and a BERTScore-style token match of the teacher utterances against the tutorial; ' +
            "Traver's Dict outcomes from given figures; optionally the eight LLM-judge criteria (JUDGE_BASE_URL).",
          body: EvaluateDialogueRequestSchema,
          response: { 200: EvaluateDialogueResponseSchema, ...errors },
        },
      },
      async (req, reply) => {
        const started = performance.now();
        const { options } = req.body;
        const signal = requestSignal(req, reply, ctx.deadlineMs, options?.deadline_ms);
        options?.dict?.pass_at_k?.forEach((p, i) => {
          if (p.c > p.n || p.k > p.n)
            throw new InvalidRequest('pass@k needs c ≤ n and k ≤ n', [{ path: `$.options.dict.pass_at_k[${i}]`, message: `n=${p.n}, c=${p.c}, k=${p.k}` }]);
        });
        if (options?.judge && !ctx.judge) {
          throw new InvalidRequest('the LLM judge is off on this service', [
            { path: '$.options.judge', message: 'set JUDGE_BASE_URL (an OpenAI-compatible API) to enable it' },
          ]);
        }
        if (req.body.reference !== undefined) await untilAborted(ctx.encoder.get(), signal); // the token match needs it
        // The judge waits on the network, on this thread, while a worker computes the rest.
        let judging: ReturnType<typeof judgeConversation> | undefined;
        if (options?.judge && ctx.judge) {
          const { conversation, reference } = judgeInput(req.body);
          judging = judgeConversation(ctx.judge, conversation, reference);
        }
        const [{ counts, versions, ...metrics }, judge] = await Promise.all([
          refusingTooLong('$.messages', ctx.pool.run('evaluateDialogueTask', req.body, signal)),
          judging,
        ]);
        return { ...metrics, ...(judge ? { judge } : {}), counts, versions, latency_ms: ms(started) };
      },
    );
    app.post(
      '/evaluate-plan',
      {
        schema: {
          operationId: 'evaluatePlan',
          tags: ['PersonalPlan'],
          summary:
            'Appendix A.4 plan metrics: TBQ, TS against a gold plan (graph edit distance), topology, phase coverage, skill hits; across plans profile variance and Jaccard',
          description: 'A plan that cannot be read is reported with its violations, not refused: the other plans are still measured.',
          body: EvaluatePlanRequestSchema,
          response: { 200: EvaluatePlanResponseSchema, ...errors },
        },
      },
      async (req, reply) => {
        const started = performance.now();
        const signal = requestSignal(req, reply, ctx.deadlineMs, req.body.options?.deadline_ms);
        await untilAborted(ctx.encoder.get(), signal);
        const { parsed, goldParsed, readable, report } = await ctx.pool.run('evaluatePlansTask', { body: req.body, limits: ctx.planLimits }, signal);
        const metricsOf = new Map(readable.map((index, i) => [index, report.plans[i]!]));
        return {
          plans: parsed.map((p, index) =>
            p.ok ? { index, parsed: true, metrics: metricsOf.get(index)! } : { index, parsed: false, violations: p.violations },
          ),
          ...(goldParsed ? { gold: goldParsed.ok ? { parsed: true } : { parsed: false, violations: goldParsed.violations } } : {}),
          cross: report.cross ? { plans: readable, ...report.cross } : null,
          options: report.options,
          latency_ms: ms(started),
        };
      },
    );
  };
