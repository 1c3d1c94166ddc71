import { closest, distance } from 'fastest-levenshtein';
import { z } from 'zod';
import { jsonPath } from '../common/json-path.js';
import type { Issue } from '../contracts/errors.js';

// Every object of a request is strict (issue 78): a key the schema does not know is a 400, never a silent
// default ({"runid": …} once counted plans into the shared run). The issue names the key and, where it is a
// near miss of a key known there or a key known elsewhere in the same body, says which or where.

/** A place in a body with every array index as `[]`: "", "options", "groups[].profile". */
type Place = string;

interface Keys {
  /** The keys known at each place. */
  at: Map<Place, Set<string>>;
  /** The places each key is known at. */
  places: Map<string, Place[]>;
}

type JsonSchema = {
  $ref?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema | JsonSchema[];
  prefixItems?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  additionalProperties?: JsonSchema | boolean;
};

const cache = new WeakMap<z.ZodType, Keys>();

/** The keys a request schema knows, place by place, read from its input JSON Schema. */
function keysOf(schema: z.ZodType): Keys {
  let keys = cache.get(schema);
  if (keys) return keys;
  const root = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', cycles: 'ref', reused: 'inline' }) as JsonSchema & {
    $defs?: Record<string, JsonSchema>;
  };
  const defs = root.$defs ?? {};
  keys = { at: new Map(), places: new Map() };
  const found = keys;
  const seen = new Set<string>();
  const walk = (s: JsonSchema | undefined, place: Place): void => {
    if (!s || typeof s !== 'object') return;
    if (s.$ref) {
      const id = s.$ref.split('/').pop()!;
      if (seen.has(`${id}@${place}`)) return;
      seen.add(`${id}@${place}`);
      walk(defs[id], place);
      return;
    }
    for (const [key, value] of Object.entries(s.properties ?? {})) {
      if (!found.at.has(place)) found.at.set(place, new Set());
      found.at.get(place)!.add(key);
      found.places.set(key, [...(found.places.get(key) ?? []), place]);
      walk(value, place === '' ? key : `${place}.${key}`);
    }
    for (const item of [s.items ?? [], s.prefixItems ?? []].flat()) walk(item, `${place}[]`);
    for (const branch of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) walk(branch, place);
  };
  walk(root, '');
  cache.set(schema, keys);
  return keys;
}

const placeOf = (path: readonly PropertyKey[]): Place =>
  path.reduce<string>((out, s) => (typeof s === 'number' ? `${out}[]` : out === '' ? String(s) : `${out}.${String(s)}`), '');
const shown = (place: Place) => (place === '' ? '$' : `$.${place.replaceAll('[]', '[*]')}`);

/** What to tell a client who sent `key` at `path` (its parent object), where `schema` does not know it. */
function unknownKeyMessage(schema: z.ZodType, path: readonly PropertyKey[], key: string): string {
  const keys = keysOf(schema);
  const place = placeOf(path);
  const here = [...(keys.at.get(place) ?? [])];
  const near = here.length > 0 ? closest(key, here) : undefined;
  if (near !== undefined && distance(key.toLowerCase(), near.toLowerCase()) <= Math.min(2, Math.floor(near.length / 3))) {
    return `unknown key \`${key}\`: did you mean \`${near}\`?`;
  }
  const elsewhere = (keys.places.get(key) ?? []).filter((p) => p !== place);
  if (elsewhere.length > 0) return `unknown key \`${key}\` here: \`${key}\` goes in \`${shown(elsewhere.sort((a, b) => a.length - b.length)[0]!)}\``;
  return `unknown key \`${key}\`${here.length > 0 ? `; known here: ${here.join(', ')}` : ''}`;
}

/** A zod issue as far as its place and kind go (fastify-type-provider-zod hands over the same fields). */
interface ZodIssueLike {
  code: string;
  path: readonly PropertyKey[];
  message: string;
  keys?: readonly string[];
  errors?: ReadonlyArray<ReadonlyArray<ZodIssueLike>>;
}

/**
 * The issues of a body `schema` refused, as the service reports them: an unknown key as one issue at its own
 * path, with unknownKeyMessage's words; a union refused only for unknown keys in the branch that fits
 * otherwise, as those keys. `prefix` places the checked value inside the body.
 */
export function describeIssues(schema: z.ZodType, issues: readonly ZodIssueLike[], prefix: readonly PropertyKey[] = []): Issue[] {
  return issues.flatMap((issue): Issue[] => {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys' && issue.keys) {
      return issue.keys.map((key) => ({ path: jsonPath([...path, key]), message: unknownKeyMessage(schema, path, key) }));
    }
    const onlyKeys =
      issue.code === 'invalid_union' ? issue.errors?.find((branch) => branch.length > 0 && branch.every((i) => i.code === 'unrecognized_keys')) : undefined;
    if (onlyKeys) return describeIssues(schema, onlyKeys, path);
    return [{ path: jsonPath(path), message: issue.message }];
  });
}
