import { z } from 'zod';

export const ErrorResponseSchema = z
  .object({
    statusCode: z.number(),
    error: z.string(),
    message: z.string(),
    issues: z
      .array(z.object({ path: z.string().describe('JSON path into the request, e.g. $.groups[0].completions'), message: z.string() }))
      .optional(),
  })
  .meta({ id: 'ErrorResponse' });

export type ErrorResponse = z.infer<typeof ErrorResponseSchema>;
