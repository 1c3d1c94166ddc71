import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp.js';

/** One request the stand-in received. */
export interface Call {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** What the stand-in answers a call: a status and a JSON body (or raw text), or nothing ever ('stall'). */
export type Answer = { status?: number; json?: unknown; text?: string } | 'stall';

/**
 * A local stand-in for an inference server (vLLM or text-embeddings-inference): it records every call and
 * answers what `answer` says, by default the API's documented answer computed by `score` for each input.
 */
export class InferenceStandIn {
  readonly calls: Call[] = [];
  /** Requests whose connection closed before the stand-in answered (the caller gave up). */
  abandoned = 0;
  answer: (call: Call) => Answer;
  private readonly server = createServer((req, res) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      data += chunk;
    });
    req.on('end', () => {
      let body: unknown;
      try {
        body = data ? JSON.parse(data) : undefined;
      } catch {
        body = data;
      }
      const call: Call = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      if (call.path !== '/health') this.calls.push(call);
      this.waiters.splice(0).forEach((w) => {
        w();
      });
      const a = call.path === '/health' ? { status: 200, text: '' } : this.answer(call);
      if (a === 'stall') {
        this.stalled.add(res);
        res.on('close', () => {
          if (this.stalled.delete(res)) this.abandoned++;
          this.waiters.splice(0).forEach((w) => {
            w();
          });
        });
        return;
      }
      res.writeHead(a.status ?? 200, { 'content-type': a.json === undefined ? 'text/plain' : 'application/json' });
      res.end(a.json === undefined ? (a.text ?? '') : JSON.stringify(a.json));
    });
  });
  private readonly stalled = new Set<ServerResponse>();
  private waiters: (() => void)[] = [];
  url = '';

  constructor(
    readonly api: 'vllm' | 'tei',
    /** The model's number for one input (its text, or its text pair). */
    readonly score: (input: string[]) => number,
  ) {
    this.answer = (call) => this.documented(call);
  }

  /** Listens on `port` (a free one by default): a server closed and started again on its own port is one that came back. */
  async listen(port = 0): Promise<this> {
    this.server.listen(port, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Resolves once `ok` holds, checked at each call and each abandoned request. */
  async until(ok: () => boolean): Promise<void> {
    while (!ok()) await new Promise<void>((r) => this.waiters.push(r));
  }

  async close(): Promise<void> {
    for (const res of this.stalled) res.destroy();
    this.server.closeAllConnections();
    if (this.server.listening) await new Promise((r) => this.server.close(r));
  }

  /** The API's answer as its documentation gives it, for a request of the documented shape. */
  documented(call: Call): Answer {
    if (this.api === 'vllm') {
      const body = call.body as { input?: unknown };
      if (call.path !== '/classify' || !Array.isArray(body?.input))
        return { status: 400, json: { error: { message: 'bad request', type: 'BadRequestError', code: 400 } } };
      const data = (body.input as string[]).map((text, index) => ({ index, label: 'LABEL_0', probs: [this.score([text])], num_classes: 1 }));
      return {
        json: {
          id: 'classify-1',
          object: 'list',
          created: 1745383065,
          model: 'traver-verifier',
          data,
          usage: { prompt_tokens: 10, total_tokens: 10, completion_tokens: 0, prompt_tokens_details: null },
        },
      };
    }
    const body = call.body as { inputs?: unknown };
    if (call.path !== '/predict' || !Array.isArray(body?.inputs)) return { status: 422, json: { error: 'Tokenization error', error_type: 'tokenizer' } };
    // Every label, best first (router/src/http/server.rs sorts them).
    return {
      json: (body.inputs as string[][]).map((input) => {
        const p = this.score(input);
        return [
          { label: 'good', score: p },
          { label: 'bad', score: 1 - p },
        ].sort((a, b) => b.score - a.score);
      }),
    };
  }
}

/** A verifier directory with a `remote` manifest for `server`. */
export function remoteVerifierDir(server: InferenceStandIn, extra: Record<string, unknown> = {}): string {
  const dir = tempDir('remote-verifier-');
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({ kind: 'remote', name: 'traver-verifier', version: 'test-1', url: server.url, api: server.api, ...extra }),
  );
  return dir;
}
