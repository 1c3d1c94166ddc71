import { ProfileSchema, type Profile } from '../contracts/profile.js';

/** One JSONL line of an audit file, once its fields are checked. */
export interface AuditRecord {
  line: number;
  id: string | number | null;
  completion: unknown;
  profile: Profile | undefined;
  query: string | undefined;
  intent: string | undefined;
}

export type LineOutcome = { kind: 'blank' } | { kind: 'malformed'; line: number; reason: string } | { kind: 'record'; record: AuditRecord };

// The completion may come under any of these names, first present wins: `completion` (the service's word),
// `plan` (datasets of plans), `output` (generation dumps).
export const COMPLETION_FIELDS = ['completion', 'plan', 'output'] as const;

const malformed = (line: number, reason: string): LineOutcome => ({ kind: 'malformed', line, reason });

/**
 * Parses one line. Only the record's envelope can make it malformed (bad JSON, no completion field, a field
 * of the wrong type); whatever the completion holds is left to the plan parser, which gates it.
 */
export function parseLine(text: string, line: number): LineOutcome {
  if (text.trim() === '') return { kind: 'blank' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return malformed(line, `invalid JSON: ${(err as Error).message}`);
  }
  return recordOf(value, line);
}

/** One record already parsed (an element of a JSON array, or a whole JSON document); `line` is its number. */
export function recordOf(value: unknown, line: number): LineOutcome {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return malformed(line, 'not a JSON object');
  const rec = value as Record<string, unknown>;

  const field = COMPLETION_FIELDS.find((f) => Object.hasOwn(rec, f));
  if (field === undefined) return malformed(line, 'no completion (expected a "completion", "plan" or "output" field)');

  let profile: Profile | undefined;
  if (rec.profile !== undefined && rec.profile !== null) {
    const parsed = ProfileSchema.safeParse(rec.profile);
    if (!parsed.success) return malformed(line, `invalid profile: ${parsed.error.issues[0]?.message ?? 'not a profile'}`);
    profile = parsed.data;
  }
  const optionalString = (name: string): string | undefined | Error => {
    const v = rec[name];
    if (v === undefined || v === null) return undefined;
    return typeof v === 'string' ? v : new Error(`"${name}" must be a string`);
  };
  const query = optionalString('query');
  if (query instanceof Error) return malformed(line, query.message);
  const intent = optionalString('intent');
  if (intent instanceof Error) return malformed(line, intent.message);
  const id = typeof rec.id === 'string' || typeof rec.id === 'number' ? rec.id : null;

  return { kind: 'record', record: { line, id, completion: rec[field], profile, query, intent } };
}
