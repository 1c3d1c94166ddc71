import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { errorCodes, type FastifyInstance, type FastifySchemaCompiler } from 'fastify';
import { validatorCompiler as zodValidatorCompiler } from 'fastify-type-provider-zod';
import { GroupsReader } from './groups-layout.js';
import { LARGE_JSON_CHARS, parseSecurely } from './json-body.js';
import { joinMovable, movableBytes } from './work/mapped.js';

// From this size a body is read on a worker. A smaller one, a 64×8 batch's 2.4 MB included, is parsed here:
// reading it on a worker put a serial stage before the judging (64×8 p50 107–123 ms against 77–106 ms
// parsed here, interleaved runs), while parsing it holds a probe for less than 20 ms.
const READ_ON_WORKER_BYTES = 4 << 20;

/**
 * A large JSON body kept as the client's bytes, for a worker to read. Private, so that the depth check of
 * every body walks no further into it.
 */
export class JsonBytes {
  readonly #bytes: Uint8Array<ArrayBuffer>;
  constructor(bytes: Uint8Array<ArrayBuffer>) {
    this.#bytes = bytes;
  }
  /** The body, in a buffer of its own that the caller may move to a worker. */
  get bytes(): Uint8Array<ArrayBuffer> {
    return this.#bytes;
  }
}

/**
 * In this plugin's routes, a JSON body of READ_ON_WORKER_BYTES or more arrives as JsonBytes, neither
 * decoded, parsed nor validated here (the route hands it to a worker, which reads it with the route's
 * schema); a smaller one is parsed and validated as in every route.
 *
 * The body is read as Fastify reads one (the route's body limit, the Content-Length check). A large body of
 * known length is copied as it arrives, one chunk per turn of the event loop, into one buffer of that
 * length: joining 13 MB at the end took the main thread 40 ms in one go, the fresh pages faulted in one by
 * one (docs/concurrency.md, Memory). A compressed one, whose decoded size is known only at its end, is
 * joined then.
 */
export function keepLargeJson(app: FastifyInstance): { validatorCompiler: FastifySchemaCompiler<unknown> } {
  return keepJson(app, READ_ON_WORKER_BYTES);
}

/**
 * In this plugin's routes every JSON body arrives as JsonBytes, read as keepLargeJson reads a large one.
 * Kept as text (Fastify's `parseAs: 'string'`), a 200,000-row fit body held the main thread 50–180 ms in
 * about one request of eight: joining the chunks, decoding them and copying the text to the worker, each
 * of which usually takes ~5 ms.
 */
export function keepJsonBytes(app: FastifyInstance): { validatorCompiler: FastifySchemaCompiler<unknown> } {
  return keepJson(app, 0);
}

function keepJson(app: FastifyInstance, readOnWorkerFrom: number): { validatorCompiler: FastifySchemaCompiler<unknown> } {
  const parseJson = app.getDefaultJsonParser('remove', 'remove');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (req, payload: IncomingMessage & { receivedEncodedLength?: number }, done) => {
    const limit = req.routeOptions.bodyLimit;
    const declared = Number(req.headers['content-length']);
    if (declared > limit) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), undefined);
    const plain = req.headers['content-encoding'] === undefined;
    const whole = plain && declared >= readOnWorkerFrom ? movableBytes(declared) : undefined;
    // A large body parsed here whose length is known is read group by group (groups-layout.ts), its groups
    // found as it arrives; a smaller one is decoded as it arrives: joining and decoding 2.4 MB at its end
    // took the main thread ~14 ms, most of it faulting in two fresh copies.
    const reader = !whole && plain && declared >= LARGE_JSON_CHARS ? new GroupsReader(parseSecurely) : undefined;
    const decoder = !whole && plain && declared < LARGE_JSON_CHARS ? new StringDecoder('utf8') : undefined;
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
      if (decoder) text += decoder.write(bytes);
      else if (reader) reader.feed(bytes);
      else if (!whole) chunks.push(bytes);
      else {
        whole.set(bytes, size - bytes.length);
        // The socket hands over megabytes in one turn; copied one chunk per turn, a probe waits for one
        // chunk's fresh pages, not for all of them.
        payload.pause();
        setImmediate(() => payload.resume());
      }
    };
    const onEnd = (err?: Error & { statusCode?: number }) => {
      stop();
      if (err) {
        if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
        done(err, undefined);
      } else if (!Number.isNaN(declared) && (payload.receivedEncodedLength || size) !== declared) {
        done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH(), undefined);
      } else if (whole) done(null, new JsonBytes(whole));
      else if (size >= readOnWorkerFrom) done(null, new JsonBytes(joinMovable(chunks).bytes));
      else if (size === 0) done(null, undefined);
      else if (size < LARGE_JSON_CHARS) parseJson(req, decoder ? text + decoder.end() : Buffer.concat(chunks, size).toString('utf8'), done);
      // Parsed in a turn of its own, as in every route (app.ts).
      else
        setImmediate(() => {
          const value = reader?.value();
          if (value !== undefined) setImmediate(done, null, value);
          else parseJson(req, Buffer.concat(reader?.chunks ?? chunks, size).toString('utf8'), (e, v) => setImmediate(done, e, v));
        });
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
