import { z } from 'zod';
import { DeadlineMsSchema } from './options.js';
import { DialogueTurnSchema, VERIFY_LIMITS } from './verify-turn.js';

/**
 * Cold-start parameters for a skill that has not been fitted: the mean of pyBKT's random initial model
 * (`random_model_uni`: prior ~ U(0,1), learn ~ U(0,0.4), guess ~ U(0,0.4), slip ~ U(0,0.3), no forgetting),
 * i.e. what pyBKT assumes before it has seen any data. Fitted parameters should replace these as soon as a
 * skill has data.
 */
export const DEFAULT_PARAMS = Object.freeze({ prior: 0.5, learn: 0.2, guess: 0.2, slip: 0.15, forget: 0 });
/** p(known) at or above which a KC counts as known, as in pyBKT. */
export const DEFAULT_THRESHOLD = 0.95;
/** Semantic evidence: the cosine floor, the cosine of full strength, the margin below a turn's best KC. */
export const DEFAULT_SEMANTIC = Object.freeze({ min: 0.75, full: 0.9, margin: 0.02 });

const TRACE_LIMITS = { maxKcs: 500, maxTurns: VERIFY_LIMITS.maxTurns, maxTextChars: VERIFY_LIMITS.maxTextChars } as const;

const Text = z.string().max(TRACE_LIMITS.maxTextChars);
const TextOrLines = z.union([Text, z.array(Text).max(TRACE_LIMITS.maxKcs)]);
const Probability = z.number().min(0).max(1);

const BktParamsSchema = z
  .object({
    prior: Probability.describe('p(known) before any evidence'),
    learn: Probability.describe('T: p(unknown → known) at each opportunity'),
    guess: Probability.describe('G: p(correct | unknown)'),
    slip: Probability.describe('S: p(incorrect | known)'),
    forget: Probability.describe('F: p(known → unknown) at each opportunity (0: no forgetting)'),
  })
  .strict();

const KcSchema = z.object({ id: z.string().min(1).max(200), text: Text.min(1), kind: z.enum(['dependency', 'step']) }).strict();

export const TraceKnowledgeRequestSchema = z
  .object({
    task: z
      .object({
        dependencies: TextOrLines.optional().describe("Dependency paths: a list, or Coding-Tutor's `dependency_all` text as is"),
        solution_steps: TextOrLines.optional().describe("Solution steps: a list, or Coding-Tutor's numbered `reference_steps` text as is"),
        dependency_all: Text.optional().describe('Coding-Tutor field name, same as `dependencies`'),
        reference_steps: Text.optional().describe('Coding-Tutor field name, same as `solution_steps`'),
      })
      .strict()
      .optional()
      .describe('Derive the knowledge components (KCs) from the task: one per dependency (dep:<path>), one per step (step:<n>)'),
    kcs: z.array(KcSchema).min(1).max(TRACE_LIMITS.maxKcs).optional().describe('Or give the KCs yourself'),
    context: z.array(DialogueTurnSchema).max(TRACE_LIMITS.maxTurns).describe('The dialogue, oldest first'),
    previous: z
      .union([z.record(z.string(), Probability), z.object({ known: z.array(z.string()), unknown: z.array(z.string()) }).strict()])
      .optional()
      .describe('The estimate returned last time (p per KC id), or known/unknown lists (known → threshold, unknown → prior)'),
    previous_turns: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("How many turns of `context` `previous` already reflects (the last answer's `turns_total`); only later turns are read. Default 0"),
    params: BktParamsSchema.partial().optional().describe('BKT parameters for every KC; missing ones take the defaults'),
    threshold: z.number().gt(0).max(1).optional().describe(`p(known) at or above which a KC is known (default ${DEFAULT_THRESHOLD}, as in pyBKT)`),
    semantic: z
      .object({ min: Probability, full: Probability, margin: Probability })
      .partial()
      .strict()
      .optional()
      .describe("Semantic evidence: cosine floor, cosine of full strength, margin below the turn's best KC"),
    options: z.object({ deadline_ms: DeadlineMsSchema }).strict().optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if ((body.task === undefined) === (body.kcs === undefined)) ctx.addIssue({ code: 'custom', path: [], message: 'exactly one of task and kcs is required' });
    const seen = new Set<string>();
    body.kcs?.forEach((kc, i) => {
      if (seen.has(kc.id)) ctx.addIssue({ code: 'custom', path: ['kcs', i, 'id'], message: `duplicate KC id "${kc.id}": KC ids must be unique` });
      seen.add(kc.id);
    });
    if ((body.previous_turns ?? 0) > body.context.length) {
      ctx.addIssue({ code: 'custom', path: ['previous_turns'], message: `must be ≤ ${body.context.length}, the number of turns sent` });
    }
  })
  .meta({
    id: 'TraceKnowledgeRequest',
    examples: [
      {
        task: {
          dependency_all: '# Intra-class Dependency:\nsqlite_agent_persistence.SQLiteAgentPersistence.filename\n',
          reference_steps:
            '1. Connect with `sqlite3.connect` using `self.filename`.\n2. Create a cursor with `cursor()`.\n3. Fetch the rows with `cursor.fetchall()`.',
        },
        context: [
          { role: 'tutor', text: 'Start by connecting with `sqlite3.connect(self.filename)`. Do you know how to create a cursor?' },
          { role: 'student', text: "I don't know what `cursor()` does. Here is the connection:\n```python\nconn = sqlite3.connect(self.filename)\n```" },
        ],
      },
    ],
  });

const EvidenceSchema = z.object({
  turn: z.number().int().describe('Index of the turn in `context`'),
  role: z.enum(['tutor', 'student']),
  observation: z.enum(['correct', 'incorrect', 'taught']).describe('taught: a tutor turn, the BKT transition alone'),
  strength: z.number().describe('Weight of the update in (0, 1]'),
  via: z.enum(['identifier', 'semantic']),
  matched: z.union([z.array(z.string()), z.number()]).describe('The identifiers named, or the cosine'),
  p_before: z.number(),
  p_after: z.number(),
});

export const TraceKnowledgeResponseSchema = z
  .object({
    kcs: z.array(
      z.object({
        id: z.string(),
        text: z.string(),
        kind: z.enum(['dependency', 'step']),
        p_before: z.number(),
        p_after: z.number(),
        status: z.enum(['known', 'unknown']),
        evidence: z.array(EvidenceSchema),
      }),
    ),
    known: z.array(z.string()),
    unknown: z.array(z.string()),
    turns_read: z.number().int(),
    turns_total: z.number().int().describe("Pass back as `previous_turns` with this answer's estimate as `previous`"),
    params: BktParamsSchema,
    threshold: z.number(),
    semantic: z.object({ min: z.number(), full: z.number(), margin: z.number() }),
    encoder: z.string(),
  })
  .meta({ id: 'TraceKnowledgeResponse' });

export type TraceKnowledgeRequest = z.infer<typeof TraceKnowledgeRequestSchema>;

const FIT_LIMITS = { maxRows: 500_000 } as const;

export const FitRequestSchema = z
  .object({
    rows: z
      .array(
        z
          .object({
            user: z.union([z.string(), z.number()]).transform(String),
            skill: z.union([z.string(), z.number()]).transform(String),
            correct: z.union([z.boolean(), z.literal(0), z.literal(1)]),
            order: z.number().optional().describe('Position in the learner’s sequence (on every row or none; input order otherwise)'),
          })
          .strict(),
      )
      .min(1)
      .max(FIT_LIMITS.maxRows)
      .describe('Response log: one row per answer'),
    options: z
      .object({
        restarts: z.number().int().min(1).max(50).optional().describe('Random initialisations per skill (default 5, as pyBKT)'),
        max_iterations: z.number().int().min(1).max(1000).optional().describe('EM iterations per restart (default 100)'),
        tolerance: z.number().positive().optional().describe('Stop when the log-likelihood improves by less (default 1e-4)'),
        seed: z.number().int().optional().describe('Seed of the initialisations: same seed, same fit (default 0)'),
        forgets: z.boolean().optional().describe('Fit the forget probability too (default false: forget = 0)'),
        max_guess: Probability.optional().describe('Upper bound on guess (default 0.3)'),
        max_slip: Probability.optional().describe('Upper bound on slip (default 0.3)'),
        deadline_ms: DeadlineMsSchema,
      })
      .strict()
      .optional(),
  })
  .strict()
  .meta({
    id: 'FitRequest',
    examples: [
      {
        rows: [
          { user: 'ana', skill: 'loops', correct: 0 },
          { user: 'ana', skill: 'loops', correct: 1 },
          { user: 'ana', skill: 'loops', correct: 1 },
          { user: 'ben', skill: 'loops', correct: 1 },
          { user: 'ben', skill: 'loops', correct: 1 },
        ],
      },
    ],
  });

export const FitResponseSchema = z
  .object({
    skills: z.array(
      z.object({
        skill: z.string(),
        params: BktParamsSchema,
        log_likelihood: z.number().describe('Natural log, all of the skill’s sequences'),
        iterations: z.number().int(),
        restarts: z.number().int(),
        sequences: z.number().int(),
        observations: z.number().int(),
      }),
    ),
    log_likelihood: z.number(),
    rows: z.number().int(),
    latency_ms: z.number(),
  })
  .meta({ id: 'FitResponse' });
