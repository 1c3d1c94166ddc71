import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorResponseSchema } from '../../contracts/errors.js';
import { queryInt } from '../../contracts/query.js';
import { ExampleRunIdSchema, HistoryRowSchema, RunConfigPatchSchema, RunIdSchema, RunViewSchema, type HistoryRow } from '../../contracts/runs.js';
import { RunNotFound } from '../../runs/ledger.js';
import { HISTORY_COLUMNS, historyColumns } from '../../runs/store.js';
import type { Service } from '../../service/context.js';

const Params = z.object({ id: ExampleRunIdSchema });

// The stored columns plus gated_fraction after gated; the weights after the step read w_after_* here.
const CSV_COLUMNS = HISTORY_COLUMNS.flatMap((c) => (c === 'gated' ? [c, 'gated_fraction' as const] : [c]));
const CSV_HEADER = CSV_COLUMNS.map((c) => c.replace(/^wa_/, 'w_after_')).join(',');

// Numbers are written with JavaScript's shortest round-trip form, so a CSV reader gets the exact doubles.
// Gate reasons and gaming signals read `cycle:3 parse_error:1` (no comma to quote); a value the step
// predates is empty.
function counts(c: Record<string, number> | null): string {
  return c === null
    ? ''
    : Object.entries(c)
        .map(([code, n]) => `${code}:${n}`)
        .join(' ');
}

function historyCsv(rows: HistoryRow[]): string {
  const lines = rows.map((r) => {
    const flat = { ...historyColumns(r), gated_fraction: r.gated_fraction, gate_reasons: counts(r.gate_reasons), gaming: counts(r.gaming) };
    return CSV_COLUMNS.map((c) => flat[c] ?? '').join(',');
  });
  return `${[CSV_HEADER, ...lines].join('\n')}\n`;
}

export const runRoutes =
  (ctx: Service): FastifyPluginAsyncZod =>
  async (app) => {
    const tags = ['runs'];
    app.get(
      '/runs',
      {
        schema: {
          operationId: 'listRuns',
          tags,
          summary: 'Runs with their current weights, a page at a time in id order',
          querystring: z
            .object({
              limit: queryInt(1, 1000).default(100),
              cursor: RunIdSchema.optional().describe("The previous page's next_cursor"),
            })
            .strict(),
          response: {
            200: z.object({
              runs: z.array(RunViewSchema),
              next_cursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last'),
            }),
            400: ErrorResponseSchema,
          },
        },
      },
      async (req) => ctx.ledger.list(req.query.cursor ?? null, req.query.limit),
    );

    app.put(
      '/runs/:id',
      {
        config: { scope: 'admin' },
        schema: {
          operationId: 'putRun',
          tags,
          summary: 'Create a run or change its configuration (applies from the next step)',
          params: Params,
          body: RunConfigPatchSchema,
          response: { 200: RunViewSchema, 201: RunViewSchema, 400: ErrorResponseSchema },
        },
      },
      async (req, reply) => {
        // Run changes take their turn behind the scoring requests that arrived before them.
        const { run, created } = await ctx.turns.inTurn(req.params.id, undefined, () => ctx.ledger.configure(req.params.id, req.body));
        return reply.code(created ? 201 : 200).send(run);
      },
    );

    app.get(
      '/runs/:id',
      {
        schema: {
          operationId: 'getRun',
          tags,
          summary: 'Configuration, weights, EMA and the open step of a run',
          params: Params,
          response: { 200: RunViewSchema, 400: ErrorResponseSchema, 404: ErrorResponseSchema },
        },
      },
      async (req) => {
        const run = await ctx.ledger.get(req.params.id);
        if (!run) throw new RunNotFound(req.params.id);
        return run;
      },
    );

    app.get(
      '/runs/:id/history',
      {
        schema: {
          operationId: 'getRunHistory',
          tags,
          summary: 'Finalized steps of a run, oldest first (JSON, or CSV with ?format=csv)',
          params: Params,
          querystring: z
            .object({
              offset: queryInt(0).default(0),
              limit: queryInt(1, 10_000).default(1000),
              format: z.enum(['json', 'csv']).default('json'),
            })
            .strict(),
          response: {
            200: z.object({ run_id: z.string(), total: z.number().int(), offset: z.number().int(), limit: z.number().int(), rows: z.array(HistoryRowSchema) }),
            400: ErrorResponseSchema,
            404: ErrorResponseSchema,
          },
        },
      },
      async (req, reply) => {
        const { offset, limit, format } = req.query;
        const { total, rows } = await ctx.ledger.history(req.params.id, offset, limit);
        if (format === 'csv') {
          // The route's schema describes the JSON form; a string with a text/csv type is sent as is.
          const csv = historyCsv(rows) as unknown as { run_id: string; total: number; offset: number; limit: number; rows: HistoryRow[] };
          return reply.type('text/csv; charset=utf-8').header('x-total-count', String(total)).send(csv);
        }
        return { run_id: req.params.id, total, offset, limit, rows };
      },
    );

    app.post(
      '/runs/:id/finalize',
      {
        config: { scope: 'admin' },
        // The deprecated call sends no body (Fastify reads it as null): it is `{}`, whatever step is open.
        preValidation: async (req) => {
          req.body ??= {};
        },
        schema: {
          operationId: 'finalizeRun',
          tags,
          summary: 'Finalize the open step now (end of training, or a trainer that knows the step is complete)',
          description:
            'Send `{"step": N}`, the step you mean to close: if the next step has begun meanwhile the answer is 409 `step_conflict` and nothing is closed; a step already finalized (a retry), or no open step, finalizes nothing. Without `step`, whatever step is open is closed: deprecated, since a request of the next step that arrives first has its step closed early.',
          params: Params,
          body: z
            .object({ step: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe('The step to finalize') })
            .strict()
            .meta({ id: 'FinalizeRequest', examples: [{ step: 0 }] }),
          response: {
            200: z.object({ finalized: HistoryRowSchema.nullable(), run: RunViewSchema }),
            400: ErrorResponseSchema,
            404: ErrorResponseSchema,
            409: ErrorResponseSchema,
          },
        },
      },
      async (req) => {
        return ctx.turns.inTurn(req.params.id, undefined, () => ctx.ledger.finalize(req.params.id, req.body.step));
      },
    );

    app.delete(
      '/runs/:id',
      {
        config: { scope: 'admin' },
        schema: {
          operationId: 'deleteRun',
          tags,
          summary: 'Delete a run, its history and its open step',
          params: Params,
          response: { 204: z.null(), 400: ErrorResponseSchema, 404: ErrorResponseSchema },
        },
      },
      async (req, reply) => {
        const deleted = await ctx.turns.inTurn(req.params.id, undefined, () => ctx.ledger.delete(req.params.id));
        if (!deleted) throw new RunNotFound(req.params.id);
        return reply.code(204).send(null);
      },
    );
  };
