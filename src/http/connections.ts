import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../common/errors.js';
import { rawAnswer } from './transport.js';

// Connections past MAX_CONNECTIONS, when none can be closed instead, still let in for the probes alone: an
// orchestrator must not see a live process as dead because clients hold every connection with requests under
// way. Each is closed after its answer, so a few serve every prober.
const PROBE_RESERVE = 8;
const PROBES = new Set(['/health', '/ready']);
// How long a refused connection stays half-closed, unread, before it is destroyed: destroyed at once, the
// request the client is still sending is answered by a reset, which can discard the 503 before it is read.
const REFUSED_LINGER_MS = 1000;

class TooManyConnections extends ServiceError {
  override name = 'TooManyConnections';
  constructor(message: string) {
    super('too_many_connections', `${message}; retry later`);
  }
}

interface Connection {
  socket: Socket;
  address: string;
  /** Requests received and not yet answered. */
  inFlight: number;
  /** When it last became idle (connected, or answered its last request), on `clock`. */
  idleSince: number;
  /** socket.bytesRead then: more since means the client has begun another request. */
  idleBytes: number;
  /** Let in past MAX_CONNECTIONS: serves the probes only, then closes. */
  probesOnly: boolean;
  /** Whether a request has begun on it. */
  used: boolean;
}

export interface ConnectionLimits {
  maxConnections: number;
  maxPerAddress: number;
  /** Connections that may wait for a place at once. */
  maxWaiting: number;
  /** The proxies of TRUST_PROXY, or false. */
  trustProxy: string[] | false;
}

/**
 * Connection admission in place of Node's maxConnections, which closed every new connection at the cap even
 * when the open ones were idle keep-alives, so a client holding idle sockets locked every other one out for
 * the keep-alive timeout. At MAX_CONNECTIONS (or MAX_CONNECTIONS_PER_ADDRESS for the new connection's
 * address) the connection idle the longest is closed to make room, as its keep-alive timeout would have;
 * when every one has a request under way, the new one waits, unread, until one closes (a trainer's burst of
 * one-sample requests is served, not shed); past MAX_WAITING_CONNECTIONS waiting, it is refused with 503.
 *
 * Idle means answered, with no request in flight and no byte received since the last answer: a connection whose
 * client has begun sending its next request is not closed under it. One not yet used is never idle: under a
 * burst its client has sent the request before the event loop reads it, and a client that sends nothing is
 * cut by HEADERS_TIMEOUT_MS.
 */
export function manageConnections(app: FastifyInstance, limits: ConnectionLimits): () => boolean {
  // A proxy's connections carry every client behind it: capping them per address would cap the proxy as a
  // whole; the clients themselves are told apart by X-Forwarded-For, per request (rate limits).
  const trusted = limits.trustProxy === false ? () => false : proxyAddr.compile(limits.trustProxy);
  const admitted = new Set<Connection>();
  const reserve = new Set<Connection>();
  const byAddress = new Map<string, Set<Connection>>();
  const bySocket = new WeakMap<Socket, Connection>();
  // Orders the moments connections became idle.
  let clock = 0;

  const idle = (c: Connection) => c.used && c.inFlight === 0 && c.socket.bytesRead === c.idleBytes;
  const forget = (c: Connection) => {
    if (!bySocket.delete(c.socket)) return;
    (c.probesOnly ? reserve : admitted).delete(c);
    const same = byAddress.get(c.address)!;
    same.delete(c);
    if (same.size === 0) byAddress.delete(c.address);
  };
  /** Closes the connection of `among` idle the longest; false when none is idle. */
  const evict = (among: Iterable<Connection>): boolean => {
    let oldest: Connection | undefined;
    for (const c of among) if (idle(c) && (oldest === undefined || c.idleSince < oldest.idleSince)) oldest = c;
    if (oldest === undefined) return false;
    forget(oldest);
    oldest.socket.destroy();
    return true;
  };
  const refuse = (socket: Socket, message: string) => {
    socket.on('error', () => undefined);
    socket.end(rawAnswer('too_many_connections', message));
    socket.pause();
    setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
  };

  /** Connections past a cap while every admitted one is busy, unread, in arrival order: let in as others close. */
  const held: Array<{ socket: Socket; address: string }> = [];
  /** Whether a connection from `address` may be let in now (closing an idle one if that makes room), and if not, which cap holds it. */
  const admissible = (address: string, withProbe: boolean): 'yes' | 'probe' | 'address' | 'total' => {
    const same = byAddress.get(address);
    if (same && same.size >= limits.maxPerAddress && !trusted(address, 0) && !evict(same)) return 'address';
    if (admitted.size < limits.maxConnections || evict(admitted)) return 'yes';
    return withProbe && (reserve.size < PROBE_RESERVE || evict(reserve)) ? 'probe' : 'total';
  };
  /** Lets in the held connections that fit now, oldest first. */
  const letHeldIn = () => {
    const full = new Set<string>();
    for (let i = 0; i < held.length; ) {
      const h = held[i]!;
      const fits = full.has(h.address) ? 'address' : admissible(h.address, false);
      if (fits === 'total') return;
      if (fits !== 'yes') {
        full.add(h.address);
        i++;
        continue;
      }
      held.splice(i, 1);
      letIn(h.socket, h.address, false);
      h.socket.resume();
    }
  };

  // Admission runs before any 'connection' listener: a connection that must wait is kept from Node's HTTP
  // parser (which reads a socket's handle directly, whatever the stream's pause says) until it is let in.
  const server = app.server;
  const emit = server.emit.bind(server);
  /** Counts the connection in and hands it to Node's HTTP server. */
  const letIn = (socket: Socket, address: string, probesOnly: boolean) => {
    const c: Connection = { socket, address, inFlight: 0, idleSince: clock++, idleBytes: 0, probesOnly, used: false };
    bySocket.set(socket, c);
    (probesOnly ? reserve : admitted).add(c);
    byAddress.set(address, (byAddress.get(address) ?? new Set()).add(c));
    socket.once('close', () => {
      forget(c);
      letHeldIn();
    });
    emit('connection', socket);
  };
  server.emit = ((event: string | symbol, ...args: unknown[]): boolean => {
    const socket = args[0] as Socket;
    const address = event === 'connection' ? socket.remoteAddress : undefined;
    if (address === undefined) return emit(event as string, ...args); // not a connection, or one already closed
    const fits = admissible(address, true);
    if (fits === 'yes' || fits === 'probe') {
      letIn(socket, address, fits === 'probe');
      return true;
    }
    // A burst of requests (a trainer's thousands of one-sample reward calls) waits for a connection to close
    // rather than being refused; past MAX_WAITING_CONNECTIONS waiting ones, a new connection is refused.
    if (held.length >= limits.maxWaiting) {
      refuse(socket, `${admitted.size} connections have requests under way and ${held.length} wait (MAX_WAITING_CONNECTIONS)`);
      return true;
    }
    socket.pause();
    const h = { socket, address };
    held.push(h);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      const at = held.indexOf(h);
      if (at >= 0) held.splice(at, 1);
    });
    return true;
  }) as typeof server.emit;
  // Before the app's own listener, which may answer the request before another listener sees it.
  app.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const c = bySocket.get(req.socket);
    if (c === undefined) return;
    c.inFlight++;
    c.used = true;
    res.once('close', () => {
      if (--c.inFlight > 0) return;
      c.idleSince = clock++;
      c.idleBytes = c.socket.bytesRead;
      // A connection kept alive while others wait for a place is closed for them, as a new one would close it.
      if (held.length > 0) letHeldIn();
    });
  });
  app.addHook('onRequest', async (req, reply) => {
    if (!bySocket.get(req.raw.socket)?.probesOnly) return;
    reply.header('connection', 'close');
    if ((req.method === 'GET' || req.method === 'HEAD') && PROBES.has(req.url.split('?')[0]!)) return;
    throw new TooManyConnections(
      `${limits.maxConnections} connections have requests under way (MAX_CONNECTIONS); this one was let in for /health and /ready only`,
    );
  });
  // Crowded: half the places taken. A flood is refused from its headers from then on (bodies.ts), before it
  // fills the other half.
  return () => admitted.size >= limits.maxConnections / 2;
}
