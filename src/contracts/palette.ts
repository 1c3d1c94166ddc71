import { z } from 'zod';

export const PHASES = ['activation', 'demonstration', 'application', 'integration', 'feedback', 'consolidate'] as const;
const PhaseSchema = z.enum(PHASES);
export type Phase = z.infer<typeof PhaseSchema>;

const ToolSchema = z
  .object({
    name: z.string().min(1).max(200),
    description: z.string().max(2000).optional(),
    phase: PhaseSchema.optional().describe('Pedagogic phase a step using this tool exhibits (e.g. retrieval tools → demonstration)'),
  })
  .strict()
  .meta({ id: 'Tool' });

export const PaletteSchema = z
  .array(z.union([z.string().min(1).max(200), ToolSchema]))
  .min(1)
  .max(1000)
  .describe('Tool palette replacing the default eight tools: names or {name, description, phase}')
  .meta({ id: 'Palette' });

export type Tool = z.infer<typeof ToolSchema>;
