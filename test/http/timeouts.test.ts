import { connect } from 'node:net';
import t from 'tap';
import { testApp } from '../support/app.js';

// Slow clients cannot hold sockets: a half-sent header and a body that never ends are cut at their
// timeouts (connections past MAX_CONNECTIONS: connections.test.ts).
const app = await testApp({ HEADERS_TIMEOUT_MS: 1000, REQUEST_TIMEOUT_MS: 2000 });
t.teardown(() => app.close());
await app.listen({ port: 0, host: '127.0.0.1' });
const { port } = app.server.address() as { port: number };

/** Connects, writes `data`, and resolves when the server closes the socket: ms taken and what it answered. */
function held(data: string): Promise<{ ms: number; answer: string }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1', () => socket.write(data));
    let answer = '';
    socket.on('data', (d) => {
      answer += d.toString();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ ms: Date.now() - started, answer }));
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
