// A JSON request body read the way the HTTP layer reads every body (prototype keys dropped, nesting bounded,
// the route's zod schema), as plain data: /trace-knowledge/fit hands its body text to a worker, which reads
// it there, so that a 200,000-row log is never parsed or validated on the main thread.
import { parse } from 'secure-json-parse';
import type { z } from 'zod';
import { jsonPath } from '../common/json-path.js';
import { pathPastDepth } from './body-depth.js';

/**
 * From this size a JSON body (or response) is handled in several turns of the event loop: gathering,
 * parsing and validating 13 MB are each tens of milliseconds, and a probe should wait for one of them at most.
 */
export const LARGE_JSON_CHARS = 1 << 20;

export interface BodyIssue {
  path: string;
  message: string;
}

/** A body that is not JSON at all, or JSON that breaks the schema or the depth bound. */
export type ReadBody<T> = { ok: true; value: T } | { ok: false; kind: 'invalid-json' | 'invalid-body'; message: string; issues: BodyIssue[] };

/** The 400 message for schema issues, shared with the validator of the other routes. */
export const invalidBodyMessage = (issues: readonly BodyIssue[], part = 'body'): string =>
  `request ${part} is invalid — ${issues[0] ? `${issues[0].path}: ${issues[0].message}` : 'invalid request'}`;

/** The 400 for a body nested deeper than MAX_JSON_DEPTH, or null. */
export function depthIssue(body: unknown, maxDepth: number): { message: string; issues: BodyIssue[] } | null {
  const deep = pathPastDepth(body, maxDepth);
  if (!deep) return null;
  return {
    message: `request body nests deeper than ${maxDepth} levels`,
    issues: [{ path: jsonPath(deep), message: `nesting deeper than MAX_JSON_DEPTH=${maxDepth}` }],
  };
}

/** JSON as Fastify's own parser reads a body (app.ts): "__proto__" and "constructor.prototype" keys dropped. Throws on text that is not JSON. */
export const parseSecurely = (text: string): unknown =>
  mayNamePrototype(text) ? parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }) : JSON.parse(text);

/**
 * Whether secure-json-parse has anything to do with `text`. It tests every text with two regular
 * expressions for a "__proto__" or "constructor" key, each letter plain or as a \u005x–\u007x escape.
 * A 64×8 batch is full of quotes (completions are JSON inside JSON): read group by group, its tests took
 * ~4.5 ms on top of JSON.parse's 4.3, these ~2.3. Text with neither key spelled out, no such escape and
 * no byte-order mark (which it strips) is text it would hand to JSON.parse as it is.
 */
const mayNamePrototype = (text: string): boolean =>
  text.charCodeAt(0) === 0xfeff || text.includes('_proto') || text.includes('"constructor"') || /\\u00[5-7]/.test(text);

export function readJsonBody<S extends z.ZodType>(text: string, schema: S, maxDepth: number): ReadBody<z.output<S>> {
  let body: unknown;
  try {
    // An empty body means no body, as for the other routes.
    body = text === '' ? undefined : parseSecurely(text);
  } catch (e) {
    return {
      ok: false,
      kind: 'invalid-json',
      message: "Body is not valid JSON but content-type is set to 'application/json'",
      issues: [{ path: '$', message: (e as Error).message }],
    };
  }
  const deep = depthIssue(body, maxDepth);
  if (deep) return { ok: false, kind: 'invalid-body', ...deep };
  const checked = schema.safeParse(body);
  if (checked.success) return { ok: true, value: checked.data };
  const issues = checked.error.issues.map((i) => ({ path: jsonPath(i.path), message: i.message }));
  return { ok: false, kind: 'invalid-body', message: invalidBodyMessage(issues), issues };
}
