import { z } from 'zod';
import { EXAMPLE_PLAN, EXAMPLE_PROFILE, EXAMPLE_QUERY } from './examples.js';
import { queryInt } from './query.js';
import { ExampleRunIdSchema } from './runs.js';

// OpenRLHF's remote reward model protocol (--reward.remote_url, earlier --remote_rm_url).
export const OpenRlhfRequestSchema = z
  .object({
    query: z
      .array(z.string())
      .describe('Prompt + response, as rendered with the chat template. Empty: an empty answer (OpenRLHF sends every server but the first empty lists)'),
    prompts: z.array(z.string()).optional().describe('The prompts, stripped from the front of each query'),
    labels: z
      .array(z.unknown())
      .optional()
      .describe(
        'Per sample: the learner profile (object or free text), { profile }, or either as a JSON string; { profile, evaluation: true } marks an evaluation sample, scored and not counted',
      ),
  })
  .superRefine((body, ctx) => {
    for (const name of ['prompts', 'labels'] as const) {
      const list = body[name];
      if (list !== undefined && list.length !== body.query.length) {
        ctx.addIssue({ code: 'custom', path: [name], message: `has ${list.length} entries for ${body.query.length} queries: must have ${body.query.length}` });
      }
    }
  })
  .meta({
    id: 'OpenRlhfRequest',
    examples: [{ query: [`${EXAMPLE_QUERY}\n${JSON.stringify(EXAMPLE_PLAN)}`], prompts: [EXAMPLE_QUERY], labels: [EXAMPLE_PROFILE] }],
  });

export const OpenRlhfQuerySchema = z
  .object({
    run_id: ExampleRunIdSchema.default('default').describe('Run whose weights and steps these samples belong to'),
    step: queryInt(0)
      .optional()
      .describe("The trainer's step, when the caller knows it (verl's global_steps): the samples count into it. Omitted: the run's automatic steps"),
    count: z
      .enum(['true', 'false'])
      // Swagger UI's "Try it out" scores without counting: trying the API advances no run.
      .meta({ examples: ['false'] })
      .default('true')
      .transform((v) => v === 'true')
      .describe("false: scored with the run's current weights and counted nowhere (validation rollouts)"),
  })
  .strict();

export const OpenRlhfResponseSchema = z
  .object({
    rewards: z.array(z.number()).describe('Σ_k w_k R_k + R_hard per sample (no group z-score: groups are not visible)'),
    scores: z.array(z.number()).describe('0 if gated, else Σ_k w_k R_k'),
    extra_logs: z.object({
      struct: z.array(z.number()),
      pers: z.array(z.number()),
      ped: z.array(z.number()),
      gated: z.array(z.number()).describe('1 when the hard gate closed'),
      flagged: z.array(z.number()).describe('1 when the plan raised a gaming signal'),
      aboutness: z
        .array(z.number())
        .describe(
          "The plan's aboutness G, 0–1 (`aboutness` of /score-plan); 0 when it has none (it did not parse, or the paper profile scored it): OpenRLHF takes numbers only",
        ),
      step: z.array(z.number()).describe('The run step each sample was counted in (with `count=false`, the step it would be counted in)'),
      counted: z
        .array(z.number())
        .describe(
          "1 when the sample counts toward its step's EMA; 0 when not: its step was already finalized (a resumed trainer replaying steps), or `count=false`",
        ),
      replayed: z.array(z.number()).describe('1 when the request was a retry of one already counted: answered again, not counted twice'),
      profile_ignored: z.array(z.number()).describe('1 when the label could not be read as a profile: the sample was scored without one'),
    }),
  })
  .meta({ id: 'OpenRlhfResponse' });

export type OpenRlhfRequest = z.infer<typeof OpenRlhfRequestSchema>;
export type OpenRlhfResponse = z.infer<typeof OpenRlhfResponseSchema>;
