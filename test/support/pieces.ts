import { request } from 'node:http';
import { setImmediate as turn } from 'node:timers/promises';

/**
 * POSTs `pieces` as separate writes, one turn of the event loop between them: a server in this process (as
 * the tests' are) reads each as it arrives, in the poll phase of that turn, so it gets them as separate chunks.
 */
export function postInPieces(url: string, pieces: Buffer[]): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const length = pieces.reduce((n, p) => n + p.length, 0);
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': length } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(parts) }));
    });
    req.on('error', reject);
    void (async () => {
      for (const p of pieces) {
        req.write(p);
        await turn();
      }
      req.end();
    })();
  });
}
