import type { OpenRlhfRequest } from '../contracts/openrlhf.js';
import { ProfileSchema, type Profile } from '../contracts/profile.js';

/** The response part of a query: OpenRLHF sends prompt + response, so the prompt is removed from the front. */
export function responseOf(query: string, prompt: string | undefined): string {
  return prompt !== undefined && prompt.length > 0 && query.startsWith(prompt) ? query.slice(prompt.length) : query;
}

/** A label as JSON when it is a JSON string of an object or a list, else as given. */
function labelValue(label: unknown): unknown {
  if (typeof label !== 'string') return label;
  const text = label.trim();
  if (!text.startsWith('{') && !text.startsWith('[')) return label;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return label; // not JSON: free text
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A label carries the learner profile: an object, { profile }, a list of tags, free text, or a JSON string
 * of any of them. One that is none of these is scored without a profile, and says so (`ignored`).
 * OpenRLHF sends its evaluation samples to the same reward URL and says nothing of them (ppo_trainer.py
 * `evaluate` → the same SingleTurnAgentExecutor): an evaluation data set marks its labels
 * `{"profile": …, "evaluation": true}`, and such a sample is scored and not counted (`evaluation`).
 */
function readLabel(label: unknown): { profile: Profile; ignored: boolean; evaluation: boolean } {
  const value = labelValue(label);
  const evaluation = isObject(value) && value.evaluation === true;
  const parsed = ProfileSchema.safeParse((isObject(value) && 'profile' in value ? value.profile : value) ?? '');
  return parsed.success ? { profile: parsed.data, ignored: false, evaluation } : { profile: '', ignored: true, evaluation };
}

/** The profile a label carries (readLabel). */
export function profileOf(label: unknown): { profile: Profile; ignored: boolean } {
  const { profile, ignored } = readLabel(label);
  return { profile, ignored };
}

/** Each sample's plan, profile and, when the prompts are sent, its prompt as the query the plan answers; whether its label marks it evaluation. */
export function samplesOf(
  req: OpenRlhfRequest,
): Array<{ completion: string; profile: Profile; profileIgnored: boolean; evaluation: boolean; query: string | null }> {
  return req.query.map((q, i) => {
    const { profile, ignored, evaluation } = readLabel(req.labels?.[i]);
    return { completion: responseOf(q, req.prompts?.[i]), profile, profileIgnored: ignored, evaluation, query: req.prompts?.[i] ?? null };
  });
}
