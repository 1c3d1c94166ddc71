import { z } from 'zod';
import { DeadlineMsSchema } from './options.js';

// Limits of the evaluation endpoints: past them a 400 names the field. A 10 MB text is refused rather
// than left to run quadratic-time metrics (ROUGE-L, METEOR alignment) for minutes.
export const EVALUATE_LIMITS = { maxTextChars: 200_000, maxMessages: 1_000, maxReferences: 16, maxPairs: 10_000, maxMessageChars: 20_000 } as const;

const Text = z.string().max(EVALUATE_LIMITS.maxTextChars);
const Smooth = z.enum(['exp', 'floor', 'add-k', 'none']);
const TextMetricSchema = z.enum(['bleu', 'rouge', 'meteor']);

const BleuSchema = z.object({
  definition: z.string(),
  score: z.number().describe('0–100'),
  counts: z.array(z.number()),
  totals: z.array(z.number()),
  precisions: z.array(z.number()).describe('Percentages, n = 1..4'),
  bp: z.number().describe('Brevity penalty'),
  sys_len: z.number(),
  ref_len: z.number(),
});
const PrfSchema = z.object({ precision: z.number(), recall: z.number(), fmeasure: z.number() });
const RougeSetSchema = z.object({ rouge1: PrfSchema, rouge2: PrfSchema, rougeL: PrfSchema, rougeLsum: PrfSchema });
const RougeSchema = z.object({ definition: z.string(), no_stemmer: RougeSetSchema, stemmer: RougeSetSchema });
const MeteorSchema = z.object({
  definition: z.string(),
  score: z.number(),
  precision: z.number(),
  recall: z.number(),
  fmean: z.number(),
  penalty: z.number(),
  chunks: z.number(),
  matches: z.number(),
  reference_index: z.number().int(),
});
const TextScoresSchema = z.object({ bleu: BleuSchema.optional(), rouge: RougeSchema.optional(), meteor: MeteorSchema.optional() });

export const EvaluateTextRequestSchema = z
  .object({
    hypothesis: Text,
    references: z.array(Text).min(1).max(EVALUATE_LIMITS.maxReferences),
    metrics: z.array(TextMetricSchema).min(1).optional().describe('Default: all three'),
    options: z
      .object({ smooth: Smooth.optional().describe("sacrebleu smooth_method (default 'exp')"), deadline_ms: DeadlineMsSchema })
      .strict()
      .optional(),
  })
  .strict()
  .meta({
    id: 'EvaluateTextRequest',
    examples: [{ hypothesis: 'First preheat the oven to 180 degrees.', references: ['Preheat the oven to 180 °C before anything else.'] }],
  });

export const EvaluateTextResponseSchema = TextScoresSchema.extend({ latency_ms: z.number() }).meta({ id: 'EvaluateTextResponse' });

export const EvaluateTextCorpusRequestSchema = z
  .object({
    pairs: z
      .array(z.object({ hypothesis: Text, references: z.array(Text).min(1).max(EVALUATE_LIMITS.maxReferences) }).strict())
      .min(1)
      .max(EVALUATE_LIMITS.maxPairs),
    metrics: z.array(TextMetricSchema).min(1).optional(),
    options: z.object({ smooth: Smooth.optional(), deadline_ms: DeadlineMsSchema }).strict().optional(),
  })
  .strict()
  .superRefine(({ pairs, metrics }, ctx) => {
    if (metrics !== undefined && !metrics.includes('bleu')) return;
    // Corpus BLEU reads one reference stream per reference position.
    const width = pairs[0]?.references.length;
    const uneven = pairs.findIndex((p) => p.references.length !== width);
    if (uneven >= 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['pairs', uneven, 'references'],
        message: `corpus BLEU needs the same number of references for every pair: this one has ${pairs[uneven]!.references.length}, pair 0 has ${width}`,
      });
    }
  })
  .meta({
    id: 'EvaluateTextCorpusRequest',
    examples: [
      {
        pairs: [
          { hypothesis: 'Preheat the oven, then grease the pan.', references: ['Preheat the oven to 180 °C and grease the pan.'] },
          { hypothesis: 'Pour the batter in and bake it.', references: ['Pour in the batter and bake for 30 minutes.'] },
        ],
        metrics: ['bleu', 'rouge'],
      },
    ],
  });

export const EvaluateTextCorpusResponseSchema = z
  .object({
    pairs: z.number().int(),
    bleu: BleuSchema.optional().describe('sacrebleu corpus_bleu over all pairs (one reference stream per reference position)'),
    rouge: RougeSchema.optional().describe('Mean over pairs of each sentence-level figure'),
    meteor: z.object({ definition: z.string(), score: z.number() }).optional().describe('Mean of sentence METEOR'),
    latency_ms: z.number(),
  })
  .meta({ id: 'EvaluateTextCorpusResponse' });

const MessageSchema = z
  .object({
    role: z.enum(['teacher', 'learner', 'tutor', 'student']).describe('tutor/student are taken as teacher/learner'),
    text: z.string().max(EVALUATE_LIMITS.maxMessageChars),
  })
  .strict();

export const EvaluateDialogueRequestSchema = z
  .object({
    messages: z.array(MessageSchema).min(1).max(EVALUATE_LIMITS.maxMessages),
    reference: z
      .union([Text, z.array(Text).min(1).max(1_000)])
      .optional()
      .describe('The tutorial: text, or its steps. Without it the reference-based metrics are null with the reason'),
    options: z
      .object({
        smooth: Smooth.optional(),
        deadline_ms: DeadlineMsSchema,
        judge: z.boolean().optional().describe('Also ask the LLM judge (JUDGE_BASE_URL must be configured)'),
        dict: z
          .object({
            pass_at_k: z
              .array(
                z
                  .object({ n: z.number().int().min(1), c: z.number().int().min(0), k: z.number().int().min(1) })
                  .strict()
                  .refine((p) => p.c <= p.n && p.k <= p.n, { message: 'pass@k needs c ≤ n and k ≤ n' }),
              )
              .max(100)
              .optional()
              .describe('Samples n, of which c pass, at k'),
            recall_at_k: z
              .object({ predicted: z.array(z.string()).max(10_000), reference: z.array(z.string()).max(10_000), k: z.number().int().min(1) })
              .strict()
              .optional(),
            outcome: z.object({ pre: z.number(), post: z.number() }).strict().optional().describe('Δ% = (post − pre) / pre'),
            cognitive_load: z.boolean().optional().describe('Return f_CL of each teacher utterance (its last 60 words)'),
          })
          .strict()
          .optional()
          .describe("Traver's Dict outcomes, from figures measured on a simulated student"),
      })
      .strict()
      .optional(),
  })
  .strict()
  .meta({
    id: 'EvaluateDialogueRequest',
    examples: [
      {
        messages: [
          { role: 'teacher', text: 'Step 1: preheat the oven to 180 degrees.' },
          { role: 'learner', text: 'Why 180?' },
          { role: 'teacher', text: 'It bakes the crust evenly. Step 2: grease the tin. That is all: finished' },
        ],
        reference: ['Preheat the oven to 180 degrees.', 'Grease the tin with butter.'],
      },
    ],
  });

const Metric = <T extends z.ZodRawShape>(shape: T) =>
  z.object({ definition: z.string(), value: z.number().nullable(), reason: z.string().optional(), ...shape });

export const EvaluateDialogueResponseSchema = z
  .object({
    metrics: z.object({
      question: Metric({}),
      completion: Metric({}),
      diversity: Metric({ distinct: z.number().int(), total: z.number().int() }),
      bleu: Metric({ details: BleuSchema.optional() }),
      rouge: Metric({ details: RougeSchema.optional() }).describe('value: ROUGE-L F without stemming'),
      meteor: Metric({ details: MeteorSchema.optional() }),
      token_match: Metric({ precision: z.number().optional(), recall: z.number().optional(), truncated: z.boolean().optional() }).describe(
        'BERTScore-style F1 on the sentence encoder’s token states — not roberta-large BERTScore',
      ),
    }),
    dict: z
      .object({
        pass_at_k: z.array(z.object({ n: z.number(), c: z.number(), k: z.number(), value: z.number() })).optional(),
        recall_at_k: z.object({ k: z.number(), value: z.number().nullable() }).optional(),
        outcome_rate: z.number().nullable().optional(),
        cognitive_load: z.array(z.string()).optional(),
      })
      .optional(),
    judge: z
      .array(
        z.object({
          criterion: z.string(),
          score: z.number().nullable(),
          reply: z.string().optional(),
          error: z.string().optional(),
          attempts: z.number().int(),
        }),
      )
      .optional(),
    counts: z.object({ messages: z.number().int(), teacher: z.number().int(), learner: z.number().int() }),
    versions: z.object({ metrics: z.string() }),
    latency_ms: z.number(),
  })
  .meta({ id: 'EvaluateDialogueResponse' });

export type TextMetric = z.infer<typeof TextMetricSchema>;
export type TextScores = z.infer<typeof TextScoresSchema>;
export type CorpusScores = Omit<z.infer<typeof EvaluateTextCorpusResponseSchema>, 'pairs' | 'latency_ms'>;
export type RougeSet = z.infer<typeof RougeSetSchema>;
export type EvaluateDialogueRequest = z.infer<typeof EvaluateDialogueRequestSchema>;
export type EvaluateTextRequest = z.infer<typeof EvaluateTextRequestSchema>;
export type EvaluateTextCorpusRequest = z.infer<typeof EvaluateTextCorpusRequestSchema>;
