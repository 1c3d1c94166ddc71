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
}

export interface ConnectionLimits {
  maxConnections: number;
  maxPerAddress: number;
  /** The proxies of TRUST_PROXY, or false. */
  trustProxy: string[] | false;
}

/**
 * Connection admission in place of Node's maxConnections, which closed every new connection at the cap even
 * when the open ones were idle keep-alives, so a client holding idle sockets locked every other one out for
 * the keep-alive timeout. At MAX_CONNECTIONS (or MAX_CONNECTIONS_PER_ADDRESS for the new connection's
 * address) the connection idle the longest is closed to make room, as its keep-alive timeout would have;
 * only when every one has a request under way is the new one refused with 503.
 *
 * Idle means no request in flight and no byte received since the last answer (or since connecting): a
 * connection whose client has begun sending its next request is not closed under it.
 */
export function manageConnections(app: FastifyInstance, limits: ConnectionLimits): void {
  // A proxy's connections carry every client behind it: capping them per address would cap the proxy as a
  // whole; the clients themselves are told apart by X-Forwarded-For, per request (rate limits).
  const trusted = limits.trustProxy === false ? () => false : proxyAddr.compile(limits.trustProxy);
  const admitted = new Set<Connection>();
  const reserve = new Set<Connection>();
  const byAddress = new Map<string, Set<Connection>>();
  const bySocket = new WeakMap<Socket, Connection>();
  // Orders the moments connections became idle.
  let clock = 0;

  const idle = (c: Connection) => c.inFlight === 0 && c.socket.bytesRead === c.idleBytes;
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
    // Unread: Node's HTTP parser would otherwise hand the request to the app.
    socket.pause();
    setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
  };

  app.server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) return; // already closed
    const same = byAddress.get(address);
    if (same && same.size >= limits.maxPerAddress && !trusted(address, 0) && !evict(same)) {
      return refuse(socket, `${same.size} connections from this address have requests under way (MAX_CONNECTIONS_PER_ADDRESS)`);
    }
    const probesOnly = admitted.size >= limits.maxConnections && !evict(admitted);
    if (probesOnly && reserve.size >= PROBE_RESERVE && !evict(reserve)) {
      return refuse(socket, `${admitted.size} connections have requests under way (MAX_CONNECTIONS)`);
    }
    const c: Connection = { socket, address, inFlight: 0, idleSince: clock++, idleBytes: 0, probesOnly };
    bySocket.set(socket, c);
    (probesOnly ? reserve : admitted).add(c);
    // Not `same`: closing the address's last connection above dropped that set.
    byAddress.set(address, (byAddress.get(address) ?? new Set()).add(c));
    socket.once('close', () => forget(c));
  });
  // Before the app's own listener, which may answer the request before another listener sees it.
  app.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const c = bySocket.get(req.socket);
    if (c === undefined) return;
    c.inFlight++;
    res.once('close', () => {
      if (--c.inFlight > 0) return;
      c.idleSince = clock++;
      c.idleBytes = c.socket.bytesRead;
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
}
