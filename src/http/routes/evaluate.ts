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
import type { Service } from '../../service/context.js';
import { evaluateCorpus, evaluateDialogue, evaluatePlans, evaluateText } from '../../service/evaluate.js';
import { requestSignal } from '../deadline.js';

const ms = (started: number) => Number((performance.now() - started).toFixed(2));
const errors = { 400: ErrorResponseSchema, 413: ErrorResponseSchema, 503: ErrorResponseSchema, 504: ErrorResponseSchema };

export const evaluateRoutes =
  (ctx: Service): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/evaluate-text',
      {
        config: { compute: true },
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
        const scores = await evaluateText(ctx, req.body, requestSignal(req, reply, ctx.deadlineMs, req.body.options?.deadline_ms));
        return { ...scores, latency_ms: ms(started) };
      },
    );
    app.post(
      '/evaluate-text/corpus',
      {
        config: { compute: true },
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
        const scores = await evaluateCorpus(ctx, req.body, requestSignal(req, reply, ctx.deadlineMs, req.body.options?.deadline_ms));
        return { pairs: req.body.pairs.length, ...scores, latency_ms: ms(started) };
      },
    );
    app.post(
      '/evaluate-dialogue',
      {
        config: { compute: true },
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
        const signal = requestSignal(req, reply, ctx.deadlineMs, req.body.options?.deadline_ms);
        const { metrics, judge } = await evaluateDialogue(ctx, req.body, signal);
        const { counts, versions, ...rest } = metrics;
        return { ...rest, ...(judge ? { judge } : {}), counts, versions, latency_ms: ms(started) };
      },
    );
    app.post(
      '/evaluate-plan',
      {
        config: { compute: true },
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
        const evaluated = await evaluatePlans(ctx, req.body, requestSignal(req, reply, ctx.deadlineMs, req.body.options?.deadline_ms));
        return { ...evaluated, latency_ms: ms(started) };
      },
    );
  };
