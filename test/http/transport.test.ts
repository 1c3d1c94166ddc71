// A body labelled gzip or deflate that is not: 400 invalid_encoding over a real connection, whatever its
// size (a large one used to be answered with a reset, sent while the rest of the body was still arriving).
// Through each way a body is read: the parser of every route, a large /score-plan kept as bytes, a fit's bytes.
import { request } from 'node:http';
import t from 'tap';
import { testApp } from '../support/app.js';

const app = await testApp();
t.teardown(() => app.close());
const base = await app.listen({ port: 0, host: '127.0.0.1' });

/** POSTs `body` as it is, labelled `encoding`: the status and code of the answer, or the connection's error. */
function post(path: string, body: Buffer, encoding: string): Promise<string> {
  return new Promise((resolve) => {
    const headers = { 'content-type': 'application/json', 'content-encoding': encoding, 'content-length': String(body.length) };
    const req = request(`${base}${path}`, { method: 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolve(`${res.statusCode} ${(JSON.parse(text) as { code: string }).code}`));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code}`));
    req.end(body);
  });
}

const small = Buffer.from(JSON.stringify({ plan: 'x' }));
// Megabytes: far more than the socket takes in before the server has read the first bytes.
const large = Buffer.from(JSON.stringify({ run_id: null, groups: [{ id: 'g', query: 'q', completions: Array(4000).fill('x'.repeat(1000)) }] }));

t.test('plain JSON labelled gzip or deflate: 400 invalid_encoding, small or large, never a reset', async (t) => {
  for (const path of ['/validate-plan', '/score-plan', '/trace-knowledge/fit'])
    for (const [size, body] of [
      ['small', small],
      ['large', large],
    ] as const)
      for (const encoding of ['gzip', 'deflate', 'X-GZIP'])
        t.equal(await post(path, body, encoding), '400 invalid_encoding', `${path}, ${size} (${body.length} bytes), ${encoding}`);
});
