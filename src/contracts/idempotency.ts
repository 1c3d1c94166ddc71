import { z } from 'zod';

/** The Idempotency-Key request header of the counting routes. */
export const IdempotencyHeadersSchema = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Same key, run and step: the retry gets the same answer and is counted once')
    .meta({ examples: ['rank0-step12-batch3'] }),
});
