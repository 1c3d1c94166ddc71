// Connection admission (src/http/connections.ts): at MAX_CONNECTIONS, or MAX_CONNECTIONS_PER_ADDRESS, the
// connection idle the longest is closed for the new one; when every one has a request under way, a few more are
// let in for the probes, and the new one waits unread until a connection closes or turns idle (past
// MAX_CONNECTIONS waiting, it is refused with 503). Real sockets from several loopback addresses (Linux routes
// all of 127.0.0.0/8 to the loopback interface).
import type { Socket } from 'node:net';
import t, { type Test } from 'tap';
import type { Config } from '../../src/config.js';
import { testApp, until } from '../support/app.js';
import { type Client, openSocket } from '../support/sockets.js';

/** An app listening on 127.0.0.1: its port, and the server's side of each connection by the client's address and port. */
async function listening(t: Test, overrides: Partial<Config>): Promise<Server> {
  const app = await testApp(overrides);
  t.teardown(() => app.close());
  const accepted = new Map<string, Socket>();
  app.server.on('connection', (s: Socket) => accepted.set(`${s.remoteAddress}:${s.remotePort}`, s));
  await app.listen({ port: 0, host: '127.0.0.1' });
  // Every connection the net server accepts, held ones included: counted before the service's admission sees it.
  let accepts = 0;
  const admission = app.server.emit.bind(app.server);
  app.server.emit = ((event: string, ...args: unknown[]) => {
    if (event === 'connection') accepts++;
    return admission(event, ...args);
  }) as typeof app.server.emit;
  const count = async () => accepts;
  return { port: (app.server.address() as { port: number }).port, accepted, count };
}

interface Server {
  port: number;
  accepted: Map<string, Socket>;
  /** Connections the net server has accepted so far, held ones included. */
  count: () => Promise<number>;
}

/** A connection from `from` (a loopback address), closed by the test's end. */
const open = (t: Test, { port }: Server, from = '127.0.0.1'): Promise<Client> => openSocket(t, port, from);

/** Sends a keep-alive request on `c` and resolves with the status of its whole answer (every answer here has a Content-Length). */
async function ask(c: Client, path = '/health'): Promise<number> {
  const before = c.received().length;
  c.socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  for (;;) {
    const answer = c.received().slice(before);
    const head = answer.indexOf('\r\n\r\n');
    const length = Number(/content-length: (\d+)/i.exec(answer)?.[1]);
    if (head >= 0 && answer.length >= head + 4 + length) return Number(answer.slice(9, 12));
    await new Promise((r) => c.socket.once('data', r));
  }
}

/** Keep-alive connections that have each been answered once, from `from(i)`. */
async function idle(t: Test, server: Server, n: number, from: (i: number) => string): Promise<Client[]> {
  const clients: Client[] = [];
  for (let i = 0; i < n; i++) {
    const c = await open(t, server, from(i));
    t.equal(await ask(c), 200);
    clients.push(c);
  }
  return clients;
}

/** A connection whose request has begun (half its headers sent, and read by the server): not idle, whatever Node has parsed. */
async function busy(t: Test, server: Server, from = '127.0.0.1'): Promise<Client> {
  const c = await open(t, server, from);
  c.socket.write('POST /validate-plan HTTP/1.1\r\nHost: x\r\n');
  await until('the server read the request begun', async () => (server.accepted.get(`${from}:${c.socket.localPort}`)?.bytesRead ?? 0) > 0);
  return c;
}

/**
 * A request sent on a connection the server holds: accepted (counted by the net server), but no 'connection'
 * event was emitted for it — that is what the HTTP parser and `accepted` listen to — so nothing reads it.
 */
async function held(t: Test, server: Server, from = '127.0.0.1'): Promise<{ c: Client; answered: Promise<number> }> {
  const before = await server.count();
  const c = await open(t, server, from);
  const answered = ask(c);
  // The admission decision is taken in the tick the connection is counted in.
  await until('the server accepted it', async () => (await server.count()) > before);
  t.notOk(server.accepted.has(`${from}:${c.socket.localPort}`), 'held: not handed to the HTTP server');
  t.equal(c.received(), '', 'and not answered');
  return { c, answered };
}

/** Finishes the request begun on `c` (busy()): it is answered 400, and the connection turns idle. */
async function finish(c: Client): Promise<void> {
  c.socket.write('Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
  await new Promise((r) => c.socket.once('data', r));
}

/** What a connection refused at once received: the whole 503 and then the close. */
async function refusal(c: Client): Promise<{ status: number; retryAfter: string | undefined; body: { code: string; message: string } }> {
  await c.closed;
  const [head = '', body = ''] = c.received().split('\r\n\r\n');
  return { status: Number(head.slice(9, 12)), retryAfter: /retry-after: (\S+)/i.exec(head)?.[1], body: JSON.parse(body) };
}

const distinct = (i: number) => `127.0.0.${i + 2}`;

t.test('at MAX_CONNECTIONS a new client is served, and the connection idle the longest is closed for it', async (t) => {
  const server = await listening(t, { MAX_CONNECTIONS: 4 });
  const kept = await idle(t, server, 4, distinct);
  const fresh = await open(t, server);
  t.equal(await ask(fresh), 200, 'the fifth connection is answered');
  await kept[0]!.closed;
  t.pass('the oldest idle connection was closed');
  for (const [i, c] of kept.slice(1).entries()) t.equal(await ask(c), 200, `connection ${i + 2} still serves`);
  // Answered again after it, connections 2 to 4 left the fifth the one idle the longest.
  const sixth = await open(t, server);
  t.equal(await ask(sixth), 200);
  await fresh.closed;
  t.pass('then the one idle the longest by its last answer, not by when it connected');
  t.equal(await ask(kept[1]!), 200, 'connection 2 is still open');
});

t.test('a connection with a request under way is never closed; with none idle a new one waits, the probes still get an answer', async (t) => {
  const server = await listening(t, { MAX_CONNECTIONS: 2, MAX_WAITING_CONNECTIONS: 2, HEADERS_TIMEOUT_MS: 60_000 });
  const working = [await busy(t, server, distinct(0)), await busy(t, server, distinct(1))];
  // Past the cap, the reserve: let in, but for the probes only, and closed after its answer.
  const spare = await open(t, server);
  spare.socket.write('GET /runs HTTP/1.1\r\nHost: x\r\n\r\n');
  const shed = await refusal(spare);
  t.equal(shed.status, 503);
  t.equal(shed.retryAfter, '1');
  t.match(shed.body, { code: 'too_many_connections', message: /2 connections have requests under way \(MAX_CONNECTIONS\).*\/health and \/ready only/ });
  for (const path of ['/health', '/ready']) {
    const probe = await open(t, server);
    t.equal(await ask(probe, path), 200, `${path} is answered`);
    await probe.closed;
    t.match(probe.received(), /connection: close/i, `and its connection closed after (${path})`);
  }
  // Once the reserve too is taken by requests under way, new connections wait, unread, up to
  // MAX_WAITING_CONNECTIONS of them; the next is answered at once, before it sends a byte.
  for (let i = 0; i < 8; i++) await busy(t, server);
  const waiting = [await held(t, server), await held(t, server)];
  const refused = await refusal(await open(t, server));
  t.equal(refused.status, 503);
  t.equal(refused.retryAfter, '1');
  t.match(refused.body, { statusCode: 503, error: 'Service Unavailable', code: 'too_many_connections', message: /2 wait \(MAX_WAITING_CONNECTIONS\)/ });
  // The connections at work were never closed: each finishes its request, and its place goes to a waiting one.
  for (const [i, c] of working.entries()) {
    await finish(c);
    t.match(c.received(), /^HTTP\/1\.1 400 /, 'its request answered');
    t.equal(await waiting[i]!.answered, 200, 'a waiting connection is let in and served');
  }
});

t.test('MAX_CONNECTIONS_PER_ADDRESS: an address at its cap has its own idle connection closed, or waits; other addresses do not', async (t) => {
  const server = await listening(t, { MAX_CONNECTIONS: 100, MAX_CONNECTIONS_PER_ADDRESS: 2 });
  const [first, second] = await idle(t, server, 2, () => '127.0.0.1');
  const third = await open(t, server);
  t.equal(await ask(third), 200);
  await first!.closed;
  t.pass("the address's own oldest idle connection made room");
  // Each connection with a request begun closes one more of the address's idle ones.
  const working = await busy(t, server);
  await busy(t, server);
  await Promise.all([second!.closed, third.closed]);
  // Both of its connections now have requests under way: the next waits for one of them.
  const waiting = await held(t, server);
  const other = await open(t, server, '127.0.0.2');
  t.equal(await ask(other), 200, 'another address is served meanwhile');
  t.equal(waiting.c.received(), '', 'still waiting');
  await finish(working);
  t.equal(await waiting.answered, 200, 'served once a connection of its address turned idle');
});

t.test('connections from a TRUST_PROXY address are not capped per address', async (t) => {
  const server = await listening(t, { MAX_CONNECTIONS: 100, MAX_CONNECTIONS_PER_ADDRESS: 2, TRUST_PROXY: '127.0.0.0/30' });
  for (let i = 0; i < 3; i++) await busy(t, server, '127.0.0.2');
  const behind = await open(t, server, '127.0.0.2');
  t.equal(await ask(behind), 200, 'a fourth connection from the proxy');
  for (let i = 0; i < 2; i++) await busy(t, server, '127.0.0.9');
  await held(t, server, '127.0.0.9'); // an address outside TRUST_PROXY is capped
});
