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
import { evaluateDialogue } from '../../metrics/evaluate-dialogue.js';
import { parsePlan } from '../../plan/parse.js';
import { evaluatePlanMetrics } from '../../plan-metrics/index.js';
import { corpusScores, TextTooLongError, textScores, type TextMetric } from '../../metrics/text-scores.js';
import type { ScoringContext } from '../context.js';
import { RequestError } from '../errors.js';

const ALL: TextMetric[] = ['bleu', 'rouge', 'meteor'];

/** Runs `f`, turning a text the metrics refuse into a 400 at `path`. */
async function refusingTooLong<T>(path: string, f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof TextTooLongError) throw new RequestError(`texts too long to score: ${e.message}`, [{ path, message: e.message }]);
    throw e;
  }
}
const ms = (started: number) => Number((performance.now() - started).toFixed(2));
const errors = { 400: ErrorResponseSchema, 413: ErrorResponseSchema };

export const evaluateRoutes = (ctx: ScoringContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/evaluate-text',
      {
        schema: {
          tags: ['WikiHowAgent'],
          summary: 'BLEU (sacrebleu), ROUGE-1/2/L/Lsum (rouge-score, with and without stemming) and METEOR (NLTK) of one hypothesis',
          body: EvaluateTextRequestSchema,
          response: { 200: EvaluateTextResponseSchema, ...errors },
        },
      },
      async (req) => {
        const started = performance.now();
        const scores = await refusingTooLong('$.hypothesis', () => textScores(req.body.hypothesis, req.body.references, req.body.metrics ?? ALL, req.body.options?.smooth));
        return { ...scores, latency_ms: ms(started) };
      },
    );
    app.post(
      '/evaluate-text/corpus',
      {
        schema: {
          tags: ['WikiHowAgent'],
          summary: 'Corpus BLEU over many pairs (sacrebleu corpus_bleu), with ROUGE and METEOR averaged over the pairs',
          body: EvaluateTextCorpusRequestSchema,
          response: { 200: EvaluateTextCorpusResponseSchema, ...errors },
        },
      },
      async (req) => {
        const started = performance.now();
        const { pairs, metrics = ALL } = req.body;
        const width = pairs[0]!.references.length;
        const uneven = pairs.findIndex((p) => p.references.length !== width);
        if (uneven >= 0 && metrics.includes('bleu')) {
          throw new RequestError('corpus BLEU needs the same number of references for every pair', [
            { path: `$.pairs[${uneven}].references`, message: `has ${pairs[uneven]!.references.length} references, pair 0 has ${width}` },
          ]);
        }
        const scores = await refusingTooLong('$.pairs', () => corpusScores(pairs, metrics, req.body.options?.smooth));
        return { pairs: pairs.length, ...scores, latency_ms: ms(started) };
      },
    );
    app.post(
      '/evaluate-dialogue',
      {
        schema: {
          tags: ['WikiHowAgent'],
          summary: 'Pedagogic-quality metrics of a tutoring conversation against its reference tutorial',
          description:
            'Question, Completion and Diversity (WikiHowAgent); BLEU, ROUGE, METEOR and a BERTScore-style token match of the teacher utterances against the tutorial; ' +
            "Traver's Dict outcomes from given figures; optionally the eight LLM-judge criteria (JUDGE_BASE_URL).",
          body: EvaluateDialogueRequestSchema,
          response: { 200: EvaluateDialogueResponseSchema, ...errors, 503: ErrorResponseSchema },
        },
      },
      async (req) => {
        const started = performance.now();
        const { options } = req.body;
        options?.dict?.pass_at_k?.forEach((p, i) => {
          if (p.c > p.n || p.k > p.n) throw new RequestError('pass@k needs c ≤ n and k ≤ n', [{ path: `$.options.dict.pass_at_k[${i}]`, message: `n=${p.n}, c=${p.c}, k=${p.k}` }]);
        });
        if (options?.judge && !ctx.judge) {
          throw new RequestError('the LLM judge is off on this service', [{ path: '$.options.judge', message: 'set JUDGE_BASE_URL (an OpenAI-compatible API) to enable it' }]);
        }
        const result = await refusingTooLong('$.messages', () => evaluateDialogue(req.body, { encoder: () => ctx.encoder.get(), judge: ctx.judge }));
        return { ...result, latency_ms: ms(started) };
      },
    );
    app.post(
      '/evaluate-plan',
      {
        schema: {
          tags: ['PersonalPlan'],
          summary: 'Appendix A.4 plan metrics: TBQ, TS against a gold plan (graph edit distance), topology, phase coverage, skill hits; across plans profile variance and Jaccard',
          description: 'A plan that cannot be read is reported with its violations, not refused: the other plans are still measured.',
          body: EvaluatePlanRequestSchema,
          response: { 200: EvaluatePlanResponseSchema, ...errors, 503: ErrorResponseSchema },
        },
      },
      async (req) => {
        const started = performance.now();
        const { plans, gold, palette, options } = req.body;
        const parsed = plans.map((p) => parsePlan(p.plan, ctx.planLimits));
        const goldParsed = gold === undefined ? undefined : parsePlan(gold, ctx.planLimits);
        const readable = parsed.flatMap((p, index) => (p.ok ? [{ index, plan: p.plan, profile: plans[index]!.profile }] : []));
        const encoder = await ctx.encoder.get();
        const report = await evaluatePlanMetrics(readable, {
          gold: goldParsed?.ok ? goldParsed.plan : undefined,
          embed: (texts) => encoder.embed(texts),
          deltaTbq: options?.delta_tbq,
          kappa: options?.kappa,
          gedTimeoutMs: options?.ged_timeout_ms,
          palette,
        });
        const metricsOf = new Map(readable.map((r, i) => [r.index, report.plans[i]!]));
        return {
          plans: parsed.map((p, index) => (p.ok ? { index, parsed: true, metrics: metricsOf.get(index)! } : { index, parsed: false, violations: p.violations })),
          ...(goldParsed ? { gold: goldParsed.ok ? { parsed: true } : { parsed: false, violations: goldParsed.violations } } : {}),
          cross: report.cross ? { plans: readable.map((r) => r.index), ...report.cross } : null,
          options: report.options,
          latency_ms: ms(started),
        };
      },
    );
  };
