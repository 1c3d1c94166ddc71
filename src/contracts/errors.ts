import { z } from 'zod';

/** What went wrong, for programs: one code per kind of failure (src/http/errors.ts maps each). */
export const ERROR_CODES = [
  'invalid_request',
  'invalid_json',
  'invalid_http',
  'request_timeout',
  'headers_too_large',
  'body_too_large',
  'unsupported_media_type',
  'unsupported_encoding',
  'invalid_encoding',
  'unauthorized',
  'forbidden',
  'rate_limited',
  'route_not_found',
  'method_not_allowed',
  'run_not_found',
  'run_quota',
  'idempotency_conflict',
  'client_closed',
  'overloaded',
  'store_unavailable',
  'state_damaged',
  'capability_unavailable',
  'worker_out_of_memory',
  'deadline_exceeded',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const ErrorResponseSchema = z
  .object({
    statusCode: z.number(),
    error: z.string().describe('The HTTP status text'),
    code: z.enum(ERROR_CODES).describe('What went wrong, for programs'),
    message: z.string(),
    issues: z.array(z.object({ path: z.string().describe('JSON path into the request, e.g. $.groups[0].completions'), message: z.string() })).optional(),
  })
  .meta({ id: 'ErrorResponse' });

export type ErrorResponse = z.infer<typeof ErrorResponseSchema>;
