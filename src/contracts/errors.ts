import { z } from 'zod';

interface ErrorRow {
  status: number;
  /** Worth retrying in a moment: the answer carries Retry-After. */
  retryable: boolean;
  /** What the code means, for the OpenAPI document and docs/operations.md. */
  meaning: string;
}

/**
 * Every way a request can fail, one row per code: the error handler, the transport layer, the OpenAPI
 * document and docs/operations.md all read this table.
 */
export const ERRORS = {
  invalid_request: {
    status: 400,
    retryable: false,
    meaning:
      'A field fails its schema or a rule between fields (`issues` names each), or the run configuration is inconsistent. A malformed plan inside a valid request is not an error: it is scored and gated',
  },
  invalid_json: { status: 400, retryable: false, meaning: 'The body is not JSON' },
  invalid_encoding: { status: 400, retryable: false, meaning: 'The body says `content-encoding: gzip` (or `deflate`) and is not' },
  invalid_http: {
    status: 400,
    retryable: false,
    meaning: "The request is not valid HTTP/1.1 (refused by Node's parser, e.g. a control character in a header)",
  },
  unauthorized: { status: 401, retryable: false, meaning: 'API keys are configured and the request has no valid one (`Authorization: Bearer <key>`)' },
  forbidden: { status: 403, retryable: false, meaning: "The key's scope does not cover the route (read < score < admin)" },
  run_quota: { status: 403, retryable: false, meaning: 'The request would create a run past `MAX_RUNS`' },
  route_not_found: { status: 404, retryable: false, meaning: 'No such route' },
  run_not_found: { status: 404, retryable: false, meaning: 'No such run' },
  method_not_allowed: { status: 405, retryable: false, meaning: 'The path exists with other methods, listed in `Allow`' },
  request_timeout: {
    status: 408,
    retryable: false,
    meaning:
      'The headers took longer than `HEADERS_TIMEOUT_MS`, the request longer than `REQUEST_TIMEOUT_MS`, or its body went `BODY_IDLE_TIMEOUT_MS` without a byte; the connection is closed',
  },
  idempotency_conflict: { status: 409, retryable: false, meaning: 'An `Idempotency-Key` reused in a run for a different body' },
  step_conflict: {
    status: 409,
    retryable: false,
    meaning: '`POST /runs/:id/finalize` named a step that is not the open one (the next step began first, or the step never did); nothing was finalized',
  },
  body_too_large: { status: 413, retryable: false, meaning: 'The body is over `BODY_LIMIT_BYTES`, counted after decompression' },
  unsupported_media_type: { status: 415, retryable: false, meaning: 'The body is not sent as `content-type: application/json`' },
  unsupported_encoding: {
    status: 415,
    retryable: false,
    meaning: 'A `content-encoding` other than `gzip` (or `x-gzip`), `deflate` or `identity`, in any case',
  },
  rate_limited: { status: 429, retryable: true, meaning: 'Over `RATE_LIMIT_MAX` requests in `RATE_LIMIT_WINDOW_MS` for this key (or client address)' },
  too_many_bodies: {
    status: 429,
    retryable: true,
    meaning:
      '`MAX_BODIES_PER_ADDRESS` slow bodies (still arriving 1 s after their headers) from this client address are under way; this one is dropped and its connection closed',
  },
  headers_too_large: { status: 431, retryable: false, meaning: "The request headers are over Node's 16 KiB" },
  client_closed: { status: 499, retryable: false, meaning: 'Logged only: the client left before the answer' },
  internal: { status: 500, retryable: false, meaning: 'A bug of ours, logged with its stack' },
  overloaded: { status: 503, retryable: true, meaning: 'Every worker is busy and `MAX_QUEUE` tasks wait; nothing was recorded' },
  too_many_connections: {
    status: 503,
    retryable: true,
    meaning:
      'A new connection found `MAX_CONNECTIONS` open with requests under way (none idle to close) and `MAX_WAITING_CONNECTIONS` already waiting for a place; answered at once and closed',
  },
  store_unavailable: {
    status: 503,
    retryable: true,
    meaning:
      'The run store is unreachable or its disk is full; nothing was recorded. Stateless scoring keeps working, `/ready` answers 503 until the store is back',
  },
  outcome_unknown: {
    status: 503,
    retryable: true,
    meaning:
      "The run store's connection was lost while the request was committing: it may or may not be recorded. A retry with the same `Idempotency-Key` is recognised if it was (the client adapters always send one)",
  },
  state_damaged: {
    status: 503,
    retryable: false,
    meaning:
      'The run state database was found damaged, deleted, replaced or truncated while running (SQLite: from then on the service stops using it and `/ready` answers 503; restore it and restart)',
  },
  capability_unavailable: { status: 503, retryable: false, meaning: 'A model the route needs did not load (the message says which and why)' },
  verifier_unavailable: {
    status: 503,
    retryable: true,
    meaning:
      'The turn verifier is a `remote` one and its inference server is down, too slow (past its `timeout_ms` after retries) or answered something other than its documented answer (the message says which)',
  },
  judge_unavailable: {
    status: 503,
    retryable: true,
    meaning:
      'A /score-plan request with `options.judge`: the LLM judge (JUDGE_BASE_URL) is down, too slow (past JUDGE_TIMEOUT_MS after JUDGE_RETRIES) or answered without a rating 1–5 (the message says which); nothing was recorded',
  },
  worker_out_of_memory: { status: 503, retryable: false, meaning: 'A task outgrew `WORKER_HEAP_MB`; the worker was replaced: send less per request' },
  shutting_down: {
    status: 503,
    retryable: true,
    meaning:
      'The service received SIGTERM and its `SHUTDOWN_GRACE_MS` is nearly over: work still under way or queued is stopped and answered so, rather than cut off; nothing of it was recorded',
  },
  deadline_exceeded: {
    status: 504,
    retryable: false,
    meaning: "The request's deadline passed (`REQUEST_DEADLINE_MS`, or a lower `options.deadline_ms`); its work was stopped and nothing of it was recorded",
  },
} as const satisfies Record<string, ErrorRow>;

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]];

/** A field at fault: a JSON path into the request and what is wrong there. */
export interface Issue {
  path: string;
  message: string;
}

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
