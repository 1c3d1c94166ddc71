import { z } from 'zod';
import { DeadlineMsSchema } from './options.js';

// Limits a request must stay within (400 with the field path past them). A context longer than the model's
// input is not an error: it is cut from the left (oldest turns first) and reported in `truncated`.
export const VERIFY_LIMITS = { maxCandidates: 64, maxTextChars: 20_000, maxTurns: 1_000, maxListItems: 200 } as const;

const Text = z.string().max(VERIFY_LIMITS.maxTextChars);

const VerifyTaskSchema = z
  .object({
    description: Text.min(1).describe('The target task, e.g. a function signature and docstring, or a problem statement'),
    dependencies: z.array(Text).max(VERIFY_LIMITS.maxListItems).optional().describe('Reference knowledge: dependency paths'),
    solution_steps: z.array(Text).max(VERIFY_LIMITS.maxListItems).optional().describe('Reference knowledge: key solution steps'),
    reference_code: Text.optional().describe(
      "The reference solution's code (as the Coding-Tutor tasks carry it; Python, JavaScript/TypeScript, C or SQL): with the student's code in the dialogue, a candidate that writes what the reference changes in it reveals the answer, and so does one that reproduces a substantial part of it, renamed or reformatted",
    ),
    code_context: Text.optional(),
  })
  .strict();

export const DialogueTurnSchema = z.object({ role: z.enum(['tutor', 'student']), text: Text }).strict();

export const VerifyTurnRequestSchema = z
  .object({
    task: VerifyTaskSchema,
    context: z.array(DialogueTurnSchema).max(VERIFY_LIMITS.maxTurns).describe('The dialogue so far, oldest first'),
    candidates: z.array(Text.min(1)).min(1).max(VERIFY_LIMITS.maxCandidates).describe('Candidate tutor utterances for the next turn'),
    options: z
      .object({
        top_k: z.number().int().positive().optional().describe('Return only the k best candidates in `ranking` (all by default)'),
        deadline_ms: DeadlineMsSchema,
      })
      .strict()
      .optional(),
  })
  .strict()
  .meta({
    id: 'VerifyTurnRequest',
    examples: [
      {
        task: {
          description: 'def running_total(xs: list[int]) -> list[int]: """Return the running totals of xs."""',
          dependencies: ['itertools.accumulate'],
          solution_steps: ['Keep a sum of the items seen so far', 'Append the sum after adding each item'],
        },
        context: [
          { role: 'tutor', text: 'What should running_total([1, 2, 3]) return?' },
          { role: 'student', text: 'I think [1, 2, 3], the same list?' },
        ],
        candidates: ['No, the answer is [1, 3, 6].', 'Close! What is the total after adding the first two numbers, 1 and 2?', 'Try again.'],
      },
    ],
  });

export const VerifyTurnResponseSchema = z
  .object({
    scores: z
      .array(z.number().min(0).max(1))
      .describe(
        'Score of each candidate in [0, 1], in request order: the predicted turn value v, which the default model blends with its guidance and actionability (see its model card)',
      ),
    ranking: z
      .array(z.number().int())
      .describe('Candidate indices, best first (top_k of them when asked); a candidate that reveals the solution comes after every one that does not'),
    best: z.object({ index: z.number().int(), text: z.string(), score: z.number() }),
    candidates: z
      .array(
        z.object({
          index: z.number().int(),
          score: z.number(),
          logit: z.number().describe('The model output before the sigmoid'),
          features: z.record(z.string(), z.number()).optional().describe('Hand features the model weighed, by name'),
          dimensions: z
            .record(z.string(), z.number().min(0).max(1))
            .optional()
            .describe(
              'Predicted probability of each labelled quality of the candidate, by name (the default model: the eight MRBench dimensions, e.g. `reveals_answer`; raised to at least 0.5 when `reveals` found the solution given); see the model card',
            ),
          reveals: z
            .object({
              kind: z
                .enum(['fix', 'changed_line', 'fix_in_prose', 'reference_code', 'complete_code', 'solution_step', 'stated_answer'])
                .describe(
                  "fix: its code writes what task.reference_code changes in the student's latest code (renamed, reformatted or rewritten around it); changed_line: without task.reference_code, its code is a line of the student's code with a few tokens changed (a fix proposed, right or wrong); fix_in_prose: a sentence names the line of that change and says it; reference_code: reproduces task.reference_code beyond what the student already has; complete_code: a complete function for the task (a query, in SQL) that is not the student's own; solution_step: states a solution step as what to do; stated_answer: announces a value as the answer, in a turn without code",
                ),
              span: z.tuple([z.number().int(), z.number().int()]).describe('[start, end) offsets (UTF-16) of the candidate text that did it'),
              overlap: z
                .number()
                .describe(
                  'How much was given: the share of the fix, of the reference code beyond the student’s, or of the step; 1 for complete code and a stated answer',
                ),
              step: z.number().int().optional().describe('solution_step: the index in task.solution_steps'),
            })
            .nullable()
            .describe(
              'How this candidate gives the solution away, read against the task; null when it does not. Such a candidate ranks after every one that does not',
            ),
          misdirects: z
            .array(z.number().int())
            .nullable()
            .describe(
              "The lines of the student's latest code this candidate points at (by number, or by quoting one) when none of them is a line the fix changes: a hint aimed at the wrong place. Null when it points nowhere or at the fix, or when the fix is unknown (it needs task.reference_code and the student's code). Such a candidate ranks after every one that neither misdirects nor reveals",
            ),
          guides: z
            .array(z.number().int())
            .nullable()
            .describe(
              "The lines of the student's latest code this candidate points at (by number, or by quoting one) when one of them is a line the fix changes and it does not reveal the fix: a hint aimed at the bug. Null otherwise, and whenever the fix is unknown. Such a candidate ranks before every one that does not guide",
            ),
        }),
      )
      .describe('Per candidate, in request order: what the score is made of'),
    model: z.object({ name: z.string(), version: z.string(), kind: z.enum(['embedding-head', 'cross-encoder', 'remote']) }),
    truncated: z
      .object({
        task: z.boolean().describe('The task text was cut to fit the model input'),
        context: z.boolean().describe('Older dialogue was dropped or cut (left truncation) to fit the model input'),
        candidates: z.array(z.number().int()).describe('Indices of candidates cut to fit the model input'),
      })
      .describe('What was cut to fit the model input; nothing else is ever dropped'),
    latency_ms: z.number(),
  })
  .meta({ id: 'VerifyTurnResponse' });

export type VerifyTask = z.infer<typeof VerifyTaskSchema>;
export type DialogueTurn = z.infer<typeof DialogueTurnSchema>;
export type VerifyTurnRequest = z.infer<typeof VerifyTurnRequestSchema>;
