import t, { type Test } from 'tap';
import type { Config } from '../../src/config.js';
import { EXAMPLE_PLAN } from '../../src/contracts/examples.js';
import { testApp, until } from '../support/app.js';
import { type Client, openSocket } from '../support/sockets.js';

async function listening(t: Test, overrides: Partial<Config>): Promise<number> {
  const app = await testApp(overrides);
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as { port: number }).port;
}

const open = openSocket;

const BODY = JSON.stringify({ plan: EXAMPLE_PLAN });
/** A POST /validate-plan with its headers and the first `sent` bytes of its body. */
const started = (sent: number, headers = '') =>
  `POST /validate-plan HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\n${headers}\r\n${BODY.slice(0, sent)}`;
const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
const codeOf = (answer: string) => /"code":"([a-z_]+)"/.exec(answer)?.[1];

t.test(
  'past MAX_BODIES_PER_ADDRESS bodies under way from one address, the next is refused 429 from its headers and closed; other addresses go on',
  async (t) => {
    const port = await listening(t, { MAX_BODIES_PER_ADDRESS: 3 });
    const clients = await Promise.all([1, 2, 3, 4].map(() => open(t, port, '127.0.0.2')));
    for (const c of clients) c.socket.write(started(20));
    await until('one refused', async () => clients.some((c) => c.received() !== ''));
    const refused = clients.filter((c) => c.received() !== '');
    t.equal(refused.length, 1, 'exactly one over the cap');
    t.equal(statusOf(refused[0]!.received()), 429);
    t.equal(codeOf(refused[0]!.received()), 'too_many_bodies');
    t.match(refused[0]!.received(), /still arriving after 1 s/);
    t.match(refused[0]!.received(), /retry-after: 1/i);
    await refused[0]!.closed;
    t.pass('its connection is closed');

    const other = await open(t, port, '127.0.0.3');
    other.socket.write(started(BODY.length));
    await until('another address is answered', async () => other.received() !== '');
    t.equal(statusOf(other.received()), 200, 'another address is not held back');

    const held = clients.filter((c) => c !== refused[0]);
    for (const c of held) c.socket.write(BODY.slice(20));
    await until('the held bodies are answered', async () => held.every((c) => c.received() !== ''));
    t.same(
      held.map((c) => statusOf(c.received())),
      [200, 200, 200],
      'the bodies under way, once finished, are served',
    );
    // Their places are free again: a fourth body from the same address is let in.
    const again = await open(t, port, '127.0.0.2');
    again.socket.write(started(BODY.length));
    await until('answered', async () => again.received() !== '');
    t.equal(statusOf(again.received()), 200);
  },
);

t.test('while connections are crowded, an address with its share of bodies under way is refused from the headers at once', async (t) => {
  // Crowded from MAX_CONNECTIONS / 2 = 4 open connections.
  const port = await listening(t, { MAX_CONNECTIONS: 8, MAX_BODIES_PER_ADDRESS: 2 });
  const clients: Client[] = [];
  for (let i = 0; i < 4; i++) clients.push(await open(t, port, '127.0.0.7'));
  for (const c of clients) c.socket.write(started(20));
  // Bodies that would finish in a moment, so not slow: only the crowding refuses them.
  await until('two refused', async () => clients.filter((c) => c.received() !== '').length === 2);
  const [refused, held] = [clients.filter((c) => c.received() !== ''), clients.filter((c) => c.received() === '')];
  t.same(
    refused.map((c) => codeOf(c.received())),
    ['too_many_bodies', 'too_many_bodies'],
  );
  for (const c of refused) t.match(c.received(), /refused from its headers/);
  for (const c of held) c.socket.write(BODY.slice(20));
  await until('the others are served', async () => held.every((c) => c.received() !== ''));
  t.same(
    held.map((c) => statusOf(c.received())),
    [200, 200],
  );
});

t.test('a body that stops arriving is answered 408 request_timeout after BODY_IDLE_TIMEOUT_MS and its connection closed', async (t) => {
  const port = await listening(t, { BODY_IDLE_TIMEOUT_MS: 300 });
  const c = await open(t, port, '127.0.0.4');
  c.socket.write(started(20));
  await c.closed;
  t.equal(statusOf(c.received()), 408);
  t.equal(codeOf(c.received()), 'request_timeout');
  t.match(c.received(), /BODY_IDLE_TIMEOUT_MS/);
  // A body whose bytes keep coming is not cut, however long it takes in all.
  const slow = await open(t, port, '127.0.0.4');
  slow.socket.write(started(10));
  for (let at = 10; at < BODY.length; at += Math.ceil(BODY.length / 5)) {
    await new Promise((r) => setTimeout(r, 100));
    slow.socket.write(BODY.slice(at, at + Math.ceil(BODY.length / 5)));
  }
  await until('answered', async () => slow.received() !== '');
  t.equal(statusOf(slow.received()), 200);
});

t.test('a request refused before its body arrived (no key) closes its connection instead of reading a body that never ends', async (t) => {
  const port = await listening(t, { API_KEYS: 'score:sCoRe-0a9b8c7d6e5f4a3b' });
  const c = await open(t, port, '127.0.0.5');
  c.socket.write(started(20));
  await c.closed;
  t.equal(statusOf(c.received()), 401);
  t.match(c.received(), /connection: close/i);
});

t.test('a body refused for its size while it still arrives: 413, closed, and its idle timer harms nothing after', async (t) => {
  const port = await listening(t, { BODY_IDLE_TIMEOUT_MS: 200, BODY_LIMIT_BYTES: 1000 });
  const c = await open(t, port, '127.0.0.6');
  c.socket.write(`POST /validate-plan HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n${'{'.repeat(100)}`);
  await c.closed;
  t.equal(statusOf(c.received()), 413);
  // Past the idle time of the body nobody reads any more: once, an unhandled error there ended the process.
  await new Promise((r) => setTimeout(r, 600));
  const probe = await open(t, port, '127.0.0.6');
  probe.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  await until('answered', async () => probe.received() !== '');
  t.equal(statusOf(probe.received()), 200);
});
