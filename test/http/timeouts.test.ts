import { connect, type Socket } from 'node:net';
import t from 'tap';
import { testApp, until } from '../support/app.js';

// Slow clients cannot hold sockets: a half-sent header and a body that never ends are cut at their
// timeouts, and connections past MAX_CONNECTIONS are closed at once.
const app = await testApp({ HEADERS_TIMEOUT_MS: 1000, REQUEST_TIMEOUT_MS: 2000, MAX_CONNECTIONS: 4 });
t.teardown(() => app.close());
await app.listen({ port: 0, host: '127.0.0.1' });
const { port } = app.server.address() as { port: number };

/** Connects, writes `data`, and resolves when the server closes the socket: ms taken and what it answered. */
function held(data: string): Promise<{ ms: number; answer: string; socket: Socket }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1', () => socket.write(data));
    let answer = '';
    socket.on('data', (d) => {
      answer += d.toString();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ ms: Date.now() - started, answer, socket }));
  });
}

t.test('a header that never ends is cut after HEADERS_TIMEOUT_MS', async (t) => {
  const { ms, answer } = await held('POST /score-plan HTTP/1.1\r\nHost: x\r\nContent-Type: appl');
  // Not before its timeout; the 408 says which cut it (how soon after is the machine's, not the service's).
  t.ok(ms >= 1000, `closed after ${ms} ms`);
  t.match(answer, /^HTTP\/1\.1 408 [\s\S]*"code":"request_timeout"/);
});

t.test('a chunked body that never ends is cut after REQUEST_TIMEOUT_MS', async (t) => {
  const { ms, answer } = await held(
    'POST /score-plan HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"gro\r\n',
  );
  t.ok(ms >= 2000, `closed after ${ms} ms`);
  t.match(answer, /^HTTP\/1\.1 408 [\s\S]*"code":"request_timeout"/);
});

t.test('connections past MAX_CONNECTIONS are closed at once', async (t) => {
  const idle = await Promise.all(
    Array.from(
      { length: 4 },
      () =>
        new Promise<Socket>((resolve) => {
          const s = connect(port, '127.0.0.1', () => resolve(s));
          s.on('error', () => undefined);
        }),
    ),
  );
  t.teardown(() => {
    for (const s of idle) s.destroy();
  });
  await until('the server holds the four', () => new Promise((r) => app.server.getConnections((_, n) => r(n === 4))));
  // A connection the server took would be answered 200.
  const { answer } = await held('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  t.equal(answer, '', 'the fifth connection is closed without an answer');
});
