import { z } from 'zod';

const Count = z.number().int().min(0);

const DialogueStateSchema = z
  .object({
    current_step: Count.describe('0-based index of the tutorial step being taught'),
    steps_total: z.number().int().min(1).describe('Number of steps in the tutorial'),
    needs_clarification: z.boolean(),
    finished: z.boolean(),
    message_count: Count,
    max_interactions: z.number().int().min(1),
  })
  .strict();

export const DialogueNextRequestSchema = z
  .object({
    state: DialogueStateSchema,
    last: z
      .object({ role: z.enum(['teacher', 'learner', 'tutor', 'student']), text: z.string().max(100_000) })
      .strict()
      .describe('The message just said'),
  })
  .strict()
  .meta({
    id: 'DialogueNextRequest',
    examples: [
      {
        state: { current_step: 0, steps_total: 3, needs_clarification: false, finished: false, message_count: 1, max_interactions: 20 },
        last: { role: 'learner', text: 'How long should I knead it?' },
      },
    ],
  });

export const DialogueNextResponseSchema = z
  .object({ next: z.enum(['teacher', 'learner', 'end']), state: DialogueStateSchema, reason: z.string() })
  .meta({ id: 'DialogueNextResponse' });
