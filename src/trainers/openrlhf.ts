import type { OpenRlhfRequest } from '../contracts/openrlhf.js';
import { ProfileSchema, type Profile } from '../contracts/profile.js';

/** The response part of a query: OpenRLHF sends prompt + response, so the prompt is removed from the front. */
export function responseOf(query: string, prompt: string | undefined): string {
  return prompt !== undefined && prompt.length > 0 && query.startsWith(prompt) ? query.slice(prompt.length) : query;
}

/**
 * A label carries the learner profile: an object, { profile }, a list of tags, free text, or a JSON string
 * of any of them. One that is none of these is scored without a profile, and says so (`ignored`).
 */
export function profileOf(label: unknown): { profile: Profile; ignored: boolean } {
  let value = label;
  if (typeof value === 'string') {
    const text = value.trim();
    if (text.startsWith('{') || text.startsWith('[')) {
      try {
        value = JSON.parse(text) as unknown;
      } catch {
        // not JSON: free text
      }
    }
  }
  if (value && typeof value === 'object' && !Array.isArray(value) && 'profile' in value) value = (value as { profile: unknown }).profile;
  const parsed = ProfileSchema.safeParse(value ?? '');
  return parsed.success ? { profile: parsed.data, ignored: false } : { profile: '', ignored: true };
}

/** Each sample's plan, profile and, when the prompts are sent, its prompt as the query the plan answers. */
export function samplesOf(req: OpenRlhfRequest): Array<{ completion: string; profile: Profile; profileIgnored: boolean; query: string | null }> {
  return req.query.map((q, i) => {
    const { profile, ignored } = profileOf(req.labels?.[i]);
    return { completion: responseOf(q, req.prompts?.[i]), profile, profileIgnored: ignored, query: req.prompts?.[i] ?? null };
  });
}
