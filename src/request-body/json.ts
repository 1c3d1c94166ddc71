// A JSON request body read the way the HTTP layer reads every body (prototype keys dropped, nesting bounded,
// the route's zod schema), as plain data: /trace-knowledge/fit hands its body text to a worker, which reads
// it there, so that a large log is never parsed or validated on the main thread.
import { parse } from 'secure-json-parse';
import type { z } from 'zod';
import { describeIssues } from './unknown-keys.js';
import { InvalidRequest, ServiceError } from '../common/errors.js';
import { jsonPath } from '../common/json-path.js';
import type { Issue } from '../contracts/errors.js';
import { pathPastDepth } from './depth.js';
import { reuseShared } from '../common/movable-bytes.js';
import type { GroupsLayout } from './groups-layout.js';

/**
 * From this size a JSON body (or response) is handled in several turns of the event loop: gathering,
 * parsing and validating a body of many megabytes each hold the main thread for a stretch, and a probe should
 * wait for one of them at most.
 */
export const LARGE_JSON_CHARS = 1 << 20;

/** The 400 message for schema issues, shared with the validator of the other routes. */
export const invalidBodyMessage = (issues: readonly Issue[], part = 'body'): string =>
  `request ${part} is invalid — ${issues[0] ? `${issues[0].path}: ${issues[0].message}` : 'invalid request'}`;

/**
 * The 400 for a body nested deeper than MAX_JSON_DEPTH, or null. `value` is the body, or a value found
 * `levels` deep in it whose paths `at` maps to paths in the body.
 */
export function depthIssue(
  value: unknown,
  maxDepth: number,
  levels = 0,
  at: (path: PropertyKey[]) => string = jsonPath,
): { message: string; issues: Issue[] } | null {
  const deep = pathPastDepth(value, maxDepth - levels);
  if (!deep) return null;
  return {
    message: `request body nests deeper than ${maxDepth} levels`,
    issues: [{ path: at(deep), message: `nesting deeper than MAX_JSON_DEPTH=${maxDepth}` }],
  };
}

/**
 * JSON with "__proto__" and "constructor.prototype" keys dropped, as secure-json-parse drops them. Throws on
 * text that is not JSON. secure-json-parse is JSON.parse (after stripping a byte-order mark) followed, when
 * its regular expressions find such a key spelled in the text, by their removal: JSON.parse's value is its
 * value whenever there is nothing to remove.
 */
export function parseSecurely(text: string): unknown {
  if (text.charCodeAt(0) === 0xfeff) return parseDropping(text);
  const value = JSON.parse(text);
  // Whether there is anything to remove is asked of the value when it holds few objects for its length (a
  // /score-plan group is mostly completion text), and of the text when it holds many (a log's rows).
  const named = namesPrototype(value, text.length >> 8);
  return named === true || (named === undefined && mayNamePrototype(text)) ? parseDropping(text) : value;
}

const parseDropping = (text: string): unknown => parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });

/**
 * Whether secure-json-parse could find anything to remove in `text`: a "__proto__" or "constructor" key,
 * each letter plain or as a \u005x–\u007x escape. Plain searches, much cheaper than its own regular expressions
 * on text full of quotes (completions are JSON inside JSON).
 */
const mayNamePrototype = (text: string): boolean => text.includes('_proto') || text.includes('"constructor"') || /\\u00[5-7]/.test(text);

/**
 * Whether an object in `value` has an own "__proto__" key, or a "constructor" key whose value has an own
 * "prototype" (what secure-json-parse removes); undefined once more than `budget` objects were looked at.
 */
function namesPrototype(value: unknown, budget: number): boolean | undefined {
  if (typeof value !== 'object' || value === null) return false;
  const stack: object[] = [value];
  // An explicit stack: the depth limit is checked only after parsing.
  for (let seen = 0; stack.length > 0; seen++) {
    if (seen > budget) return undefined;
    const node = stack.pop()!;
    if (Array.isArray(node)) {
      for (const x of node) if (typeof x === 'object' && x !== null) stack.push(x);
      continue;
    }
    if (Object.hasOwn(node, '__proto__')) return true;
    const ctor: unknown = Object.hasOwn(node, 'constructor') ? (node as { constructor: unknown }).constructor : undefined;
    if (typeof ctor === 'object' && ctor !== null && Object.hasOwn(ctor, 'prototype')) return true;
    for (const k in node) {
      const x = (node as Record<string, unknown>)[k];
      if (typeof x === 'object' && x !== null) stack.push(x);
    }
  }
  return false;
}

/**
 * The one JSON parser of request bodies: an empty body means no body (curl -X POST -H 'content-type:
 * application/json' …/finalize), and a "__proto__" or "constructor.prototype" key is dropped rather than
 * failing the request: planners emit junk keys, unknown plan fields are ignored anyway, and nothing here
 * merges objects.
 */
export function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return parseSecurely(text);
  } catch (e) {
    throw new ServiceError('invalid_json', "Body is not valid JSON but content-type is set to 'application/json'", [
      { path: '$', message: (e as Error).message },
    ]);
  }
}

/** A JSON body read as every route reads one, with the route's schema; throws the 400 it deserves. */
export function readJsonBody<S extends z.ZodType>(text: string, schema: S, maxDepth: number): z.output<S> {
  const body = parseBody(text);
  const deep = depthIssue(body, maxDepth);
  if (deep) throw new InvalidRequest(deep.message, deep.issues);
  const checked = schema.safeParse(body);
  if (checked.success) return checked.data;
  const issues = describeIssues(schema, checked.error.issues);
  throw new InvalidRequest(invalidBodyMessage(issues), issues);
}

/**
 * Elements of an array of a body read as readJsonBody reads the body: `texts` are their JSON, each read on
 * its own, the array is at `path` in the body (of schema `body`) and the first text is its `first` element. Nesting counts from
 * the body's top, and issue paths point into the body. One text per element, not the run of them as one:
 * a text of more than 128 KiB is allocated in fresh pages, and on this machine faulting them in cost more
 * than parsing it.
 */
export function readJsonElements<S extends z.ZodType>(
  texts: readonly string[],
  element: S,
  maxDepth: number,
  path: readonly string[],
  first: number,
  body: z.ZodType,
): z.output<S>[] {
  const values = texts.map(parseBody);
  const inBody = (i: number) => (p: readonly PropertyKey[]) => jsonPath([...path, first + i, ...p]);
  for (const [i, value] of values.entries()) {
    const deep = depthIssue(value, maxDepth, path.length + 1, inBody(i));
    if (deep) throw new InvalidRequest(deep.message, deep.issues);
  }
  const out: z.output<S>[] = [];
  const issues: Issue[] = [];
  for (const [i, value] of values.entries()) {
    const checked = element.safeParse(value);
    if (checked.success) out.push(checked.data);
    else issues.push(...describeIssues(body, checked.error.issues, [...path, first + i]));
  }
  if (issues.length > 0) throw new InvalidRequest(invalidBodyMessage(issues), issues);
  return out;
}

/**
 * A large JSON body kept as the client's bytes, for a worker to read. Private, so that the depth check of
 * every body walks no further into it.
 */
export class JsonBytes {
  #bytes: Uint8Array<ArrayBuffer | SharedArrayBuffer> | undefined;
  constructor(bytes: Uint8Array<ArrayBuffer | SharedArrayBuffer>) {
    this.#bytes = bytes;
  }
  /** The body, in a buffer of its own that the caller may move to a worker, or one the workers share. */
  get bytes(): Uint8Array<ArrayBuffer | SharedArrayBuffer> {
    if (this.#bytes === undefined) throw new Error('the body was released');
    return this.#bytes;
  }
  /** What to move to the worker that reads the body: its buffer, unless the workers share it. */
  get transfer(): ArrayBuffer[] {
    return this.bytes.buffer instanceof ArrayBuffer ? [this.bytes.buffer] : [];
  }
  /**
   * The request is done with its body: a buffer the workers shared goes back for the next large body
   * (reuseShared), and the body can no longer be read here.
   */
  release(): void {
    const bytes = this.#bytes;
    this.#bytes = undefined;
    if (bytes?.buffer instanceof SharedArrayBuffer) reuseShared(bytes as Uint8Array<SharedArrayBuffer>);
  }
}

/** A large /score-plan body as the client's bytes, with where its groups lie in them. */
export class GroupsBytes extends JsonBytes {
  constructor(
    bytes: Uint8Array<ArrayBuffer | SharedArrayBuffer>,
    readonly layout: GroupsLayout,
  ) {
    super(bytes);
  }
}
