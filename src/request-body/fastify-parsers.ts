import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { errorCodes, type FastifyInstance, type FastifySchemaCompiler } from 'fastify';
import { validatorCompiler as zodValidatorCompiler } from 'fastify-type-provider-zod';
import { GroupsReader, GroupsScanner } from './groups-layout.js';
import { GroupsBytes, JsonBytes, LARGE_JSON_CHARS, parseBody, parseSecurely } from './json.js';
import { joinMovable, movableBytes, sharedBytes } from '../common/movable-bytes.js';

// From this size a /score-plan body is kept as bytes, its groups read on the workers that judge them. A
// smaller one, a 64×8 batch included, is parsed here group by group as it arrives: read on the workers, the
// threads that judge, it was served slower and fewer per second (services taking turns), while parsing it
// here holds a probe only briefly.
const READ_ON_WORKER_BYTES = 4 << 20;
// From this size a /score-plan body read here is parsed a group at a time. Its whole text would be one
// string in V8's large-object space, whose fresh pages are faulted in as it is built: decoding and parsing
// an 8×8 batch (286 KiB) whole took 2.4 times what parsing its groups one by one did, a body just under
// this size less than its groups did.
const READ_BY_GROUP_BYTES = 128 << 10;

type Done = (err: Error | null, body?: unknown) => void;

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * SHA-256 of the body's bytes as they arrived (decoded, if compressed), on keepLargeJson's routes when
     * the request carries an Idempotency-Key: hashed a chunk at a time as they come in, not all at the end.
     */
    bodySha256?: Buffer;
  }
}

/** `text` parsed by the one parser (parseBody), handed to Fastify's `done`. */
function parseInto(done: Done, text: string): void {
  let body: unknown;
  try {
    body = parseBody(text);
  } catch (e) {
    done(e as Error, undefined);
    return;
  }
  done(null, body);
}

/** The JSON parser of every route: a large body (LARGE_JSON_CHARS) is parsed in a turn of its own, so a probe waits for one stage at most. */
export function installJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    if ((body as string).length < LARGE_JSON_CHARS) parseInto(done, body as string);
    else setImmediate(() => parseInto((e, v) => setImmediate(done, e, v), body as string));
  });
}

/**
 * In this plugin's routes, a JSON body of READ_ON_WORKER_BYTES or more arrives as bytes, neither decoded,
 * parsed nor validated here: GroupsBytes, with where its groups lie (groups-layout.ts), so that each worker
 * reads the groups it judges, or JsonBytes, for a worker to read whole, when that was not found (a
 * compressed body, or one the scanner is unsure of). A smaller one is parsed and validated as in every
 * route, from READ_BY_GROUP_BYTES on group by group as it arrives.
 *
 * The body is read as Fastify reads one (the route's body limit, the Content-Length check). A large body of
 * known length is copied as it arrives, one chunk per turn of the event loop, into one buffer of that
 * length: joining a large body at its end held the main thread for one long stretch, its fresh pages
 * faulted in one by one (docs/concurrency.md). A compressed one, whose decoded size is known only at its
 * end, is joined then.
 */
export function keepLargeJson(app: FastifyInstance): { validatorCompiler: FastifySchemaCompiler<unknown> } {
  return keepJson(app, READ_ON_WORKER_BYTES, true);
}

/**
 * In this plugin's routes every JSON body arrives as JsonBytes, read as keepLargeJson reads a large one.
 * Kept as text (Fastify's `parseAs: 'string'`), a large fit body now and then held the main thread for one
 * long stretch: joining the chunks, decoding them or copying the text to the worker, each of which is
 * usually short.
 */
export function keepJsonBytes(app: FastifyInstance): { validatorCompiler: FastifySchemaCompiler<unknown> } {
  return keepJson(app, 0, false);
}

function keepJson(app: FastifyInstance, bytesFrom: number, groups: boolean): { validatorCompiler: FastifySchemaCompiler<unknown> } {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (req, payload: IncomingMessage & { receivedEncodedLength?: number }, done) => {
    const limit = req.routeOptions.bodyLimit;
    const digest = groups && req.headers['idempotency-key'] !== undefined ? createHash('sha256') : undefined;
    const declared = Number(req.headers['content-length']);
    if (declared > limit) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), undefined);
    const plain = req.headers['content-encoding'] === undefined;
    // A body whose groups several workers read is shared with them; another is moved to the one that reads it.
    const whole = plain && declared >= bytesFrom ? (groups ? sharedBytes(declared) : movableBytes(declared)) : undefined;
    // The groups are found as the bytes arrive (a middling body's parsed then too). A smaller body is decoded
    // as it arrives: joining and decoding it at its end held the main thread mostly to fault in two fresh copies.
    const scanner = whole && groups ? new GroupsScanner() : undefined;
    const reader = !whole && groups && plain && declared >= READ_BY_GROUP_BYTES ? new GroupsReader(parseSecurely) : undefined;
    const decoder = !whole && !reader && plain && declared < bytesFrom ? new StringDecoder('utf8') : undefined;
    let text = '';
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      payload.off('data', onData);
      payload.off('end', onEnd);
      payload.off('error', onEnd);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      // The decoded size bounds a compressed body (a zip bomb stops here), the declared one any other.
      if (size > limit || (payload.receivedEncodedLength ?? 0) > limit || (whole && size > whole.length)) {
        stop();
        done(size > limit ? new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE() : new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH(), undefined);
        return;
      }
      digest?.update(bytes);
      if (decoder) text += decoder.write(bytes);
      else if (reader) reader.feed(bytes);
      else if (!whole) chunks.push(bytes);
      else {
        whole.set(bytes, size - bytes.length);
        scanner?.feed(bytes);
        // The socket hands over megabytes in one turn; copied one chunk per turn, a probe waits for one
        // chunk's fresh pages, not for all of them.
        payload.pause();
        setImmediate(() => payload.resume());
      }
    };
    // The body's value: its groups as the reader parsed them, or else its text parsed whole, for its value or its error.
    const finish = (to: Done) => {
      const value = reader?.value();
      if (value !== undefined) to(null, value);
      else parseInto(to, decoder ? text + decoder.end() : Buffer.concat(reader?.chunks ?? chunks, size).toString('utf8'));
    };
    const onEnd = (err?: Error & { statusCode?: number }) => {
      stop();
      if (digest) req.bodySha256 = digest.digest();
      const layout = scanner?.layout();
      if (err) {
        if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
        done(err, undefined);
      } else if (!Number.isNaN(declared) && (payload.receivedEncodedLength || size) !== declared) {
        done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH(), undefined);
      } else if (whole) done(null, layout ? new GroupsBytes(whole, layout) : new JsonBytes(whole));
      else if (size >= bytesFrom) done(null, new JsonBytes(joinMovable(chunks).bytes));
      else if (size === 0) done(null, undefined);
      else if (size < LARGE_JSON_CHARS) finish(done);
      // Finished in a turn of its own, as in every route (installJsonParser).
      else setImmediate(() => finish((e, v) => setImmediate(done, e, v)));
    };
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onEnd);
    payload.resume();
  });
  return {
    validatorCompiler: (route) => {
      const zod = zodValidatorCompiler(route as Parameters<typeof zodValidatorCompiler>[0]);
      return (value) => (value instanceof JsonBytes ? { value } : zod(value));
    },
  };
}
