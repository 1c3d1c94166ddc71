import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** POSTs `pieces` as separate writes, a pause between them, so that the server reads them as separate chunks. */
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
        await sleep(5);
      }
      req.end();
    })();
  });
}
