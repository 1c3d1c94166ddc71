import { Transform } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ServiceError } from '../common/errors.js';

// Bodies that never end (issue 77): a request whose body is still arriving has its connection busy, and no
// eviction of idle keep-alives takes it back, so 1,100 of them from five addresses held every connection for
// REQUEST_TIMEOUT_MS. A body that stops arriving is cut, slow bodies are capped per client address, and a
// request answered before its body arrived closes its connection rather than draining the rest.

// A body still arriving this long after its headers counts as slow. A trainer's burst of small requests sends
// each body right behind its headers, so it never counts however many arrive at once.
const SLOW_AFTER_MS = 1_000;

class TooManyBodies extends ServiceError {
  override name = 'TooManyBodies';
  readonly statusCode = 429;
  constructor(max: number, what: string) {
    super('too_many_bodies', `${max} requests from this address are still sending their bodies (MAX_BODIES_PER_ADDRESS): ${what}`);
  }
}

class BodyIdle extends ServiceError {
  override name = 'BodyIdle';
  readonly statusCode = 408;
  constructor(ms: number) {
    super('request_timeout', `no byte of the body arrived for ${ms} ms (BODY_IDLE_TIMEOUT_MS): the request is dropped and the connection closed`);
  }
}

export interface BodyLimits {
  maxPerAddress: number;
  idleMs: number;
  /** Whether connections are crowded (connections.ts): then an address over its share is refused from its headers. */
  crowded: () => boolean;
}

/** Whether the request announces a body (Content-Length above 0, or chunked). */
const announcesBody = (req: FastifyRequest) => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

export function limitBodies(app: FastifyInstance, limits: BodyLimits): void {
  /** Bodies still arriving, and those of them that are slow, per client address. */
  const arriving = new Map<string, number>();
  const slow = new Map<string, number>();
  const answered = new WeakMap<FastifyRequest, () => void>();
  const add = (counts: Map<string, number>, address: string, by: number) => {
    const n = (counts.get(address) ?? 0) + by;
    if (n === 0) counts.delete(address);
    else counts.set(address, n);
    return n;
  };
  // Slowness takes a second to show; while connections are crowded that is too long to wait: an address
  // with its share of bodies under way already has this one refused from its headers.
  app.addHook('onRequest', async (req) => {
    if (req.raw.complete || !announcesBody(req)) return;
    if ((arriving.get(req.ip) ?? 0) >= limits.maxPerAddress && limits.crowded())
      throw new TooManyBodies(limits.maxPerAddress, 'while connections are crowded this one is refused from its headers, its body unread');
  });
  // The body as it arrives, through a stream that fails it once no byte has come for idleMs, or once it is
  // slow beyond its address's share.
  app.addHook('preParsing', async (req, _reply, payload) => {
    if (req.raw.complete) return payload;
    const address = req.ip;
    add(arriving, address, 1);
    let counted = false;
    const watched = new Transform({
      transform(chunk, _encoding, callback) {
        idle.refresh();
        callback(null, chunk);
      },
    });
    // The parser listens while it reads; a failure after it stopped (the body refused for its size) goes nowhere.
    watched.on('error', () => undefined);
    const idle = setTimeout(() => watched.destroy(new BodyIdle(limits.idleMs)), limits.idleMs).unref();
    const late = setTimeout(() => {
      counted = true;
      if (add(slow, address, 1) > limits.maxPerAddress)
        watched.destroy(new TooManyBodies(limits.maxPerAddress, 'this one, still arriving after 1 s, is dropped'));
    }, SLOW_AFTER_MS).unref();
    let open = true;
    const done = () => {
      if (!open) return;
      open = false;
      clearTimeout(idle);
      clearTimeout(late);
      add(arriving, address, -1);
      if (counted) add(slow, address, -1);
    };
    watched.once('close', done).once('end', done);
    // However the request ended (its answer sent, its connection gone), its place is given back.
    answered.set(req, done);
    payload.once('error', (e) => watched.destroy(e));
    // The parsers compare the bytes received on the wire (before decompression) with Content-Length.
    Object.defineProperty(watched, 'receivedEncodedLength', { get: () => (payload as { receivedEncodedLength?: number }).receivedEncodedLength });
    return payload.pipe(watched);
  });
  // Answered before its body arrived (refused from its headers, or cut): the rest is not worth reading.
  app.addHook('onSend', async (req, reply) => {
    if (!req.raw.complete) reply.header('connection', 'close');
  });
  app.addHook('onResponse', async (req) => answered.get(req)?.());
  app.addHook('onRequestAbort', async (req) => answered.get(req)?.());
}
