import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubCall {
  body: { model: string; messages: { role: string; content: string }[] };
  authorization?: string;
}

/**
 * A local OpenAI-compatible chat-completions server for tests: `respond` decides each reply
 * ({ status, content } or { delayMs }); it records the calls and the most requests ever in flight.
 */
export async function startOpenAiStub(respond: (call: StubCall, n: number) => { status?: number; content?: string; delayMs?: number }) {
  const calls: StubCall[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const held = new Set<NodeJS.Timeout>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      const call: StubCall = { body: JSON.parse(raw) as StubCall['body'], authorization: req.headers.authorization };
      calls.push(call);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const r = respond(call, calls.length);
      const timer = setTimeout(() => {
        held.delete(timer);
        inFlight--;
        if (res.destroyed) return;
        res.writeHead(r.status ?? 200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: `c${calls.length}`,
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: r.content ?? '' }, finish_reason: 'stop' }],
          }),
        );
      }, r.delayMs ?? 5);
      held.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    calls,
    maxInFlight: () => maxInFlight,
    // A reply still being held back (a stalled judge) does not keep the server open.
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of held) clearTimeout(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
