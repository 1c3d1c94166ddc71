// A verifier served by an inference server: Traver's verifier (a 7B model with a value head) does not run
// in a CPU process. The two APIs, as their own documentation specifies them:
// - vLLM, POST /classify (docs/models/pooling_models/classify.md and reward.md of vllm-project/vllm at
//   27c627ba040c295ff1916b185c6c025b3e53a9f1: a sequence reward model is served as a classification
//   model): {"model", "input": [text, …], "truncate_prompt_tokens": -1, "truncation_side": "left"} →
//   {"data": [{"index", "label", "probs": [p, …], "num_classes"}, …]}. `probs` is the head's output after
//   its activation (a sigmoid for one label, a softmax over several; vllm/model_executor/layers/pooler
//   PoolerClassify); `use_activation: false` returns the raw outputs.
// - text-embeddings-inference, POST /predict (docs/openapi.json and router/src/http/server.rs of
//   huggingface/text-embeddings-inference at 0d124dc9773be6ac5a9a57d8439aba9bbbf33273): {"inputs": a batch
//   of [text] or [text, text] pairs, "truncate": true, "truncation_direction": "Left", "raw_scores"} →
//   one list per input of {"label", "score"}, every label, best first; the score is a sigmoid of the
//   logit for one label, a softmax over several (core/src/infer.rs), the raw logit with raw_scores.
// Both answer GET /health with 200 while they serve.
import { ServiceError } from '../common/errors.js';
import { fill, traverFields } from './format.js';
import type { RemoteManifest } from './manifest.js';
import type { TurnVerifier, Verification, VerifyInput } from './model.js';

/** A candidate as the server answered it: the number that is its score, and its dimensions if the manifest names classes for them. */
interface Read {
  x: number;
  dimensions: Record<string, number> | undefined;
}

/** The verifier server is down, too slow or answered something that is not the documented answer. */
export class VerifierUnavailable extends ServiceError {
  override name = 'VerifierUnavailable';
  constructor(message: string) {
    super('verifier_unavailable', message);
  }
}

class Retryable extends Error {
  override name = 'Retryable';
}

class Abandoned extends ServiceError {
  override name = 'Abandoned';
  constructor() {
    super('client_closed', 'the request was abandoned while the verifier server worked on it');
  }
}

// How often a call checks whether its request was abandoned (deadline passed, client gone): the flag lives
// in memory shared with the main thread, which cannot abort a worker's fetch itself.
const STOP_POLL_MS = 20;
const BACKOFF_MS = 100;
// Connection errors that happen before a byte of the request is sent: refused, no such host, no route, no connection in time.
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
// A probability this close to 0 or 1 still has a finite logit.
const EPSILON = 1e-7;

/** One call per request: all N candidates in one batch, sent again only when it was not taken on (refused connection, 429, 503). */
export class RemoteVerifier implements TurnVerifier {
  readonly info;
  private readonly endpoint: string;

  /** `local`: the verifier of `dimensions_from`, whose dimension predictions are reported beside the remote score. */
  constructor(
    private readonly manifest: RemoteManifest,
    private readonly local?: TurnVerifier,
  ) {
    this.info = { name: manifest.name, version: manifest.version, kind: manifest.kind };
    this.endpoint = `${manifest.url.replace(/\/+$/, '')}${manifest.api === 'vllm' ? '/classify' : '/predict'}`;
  }

  async verify({ task, context, candidates }: VerifyInput, stop: () => boolean = () => false): Promise<Verification> {
    const { template, api, output } = this.manifest;
    const fields = traverFields(task, context);
    const inputs = candidates.map((response) => {
      const f = { ...fields, response };
      return template.second ? [fill(template.first, f), fill(template.second, f)] : [fill(template.first, f)];
    });
    const raw = output === 'value';
    const body =
      api === 'vllm'
        ? {
            ...(this.manifest.served_model && { model: this.manifest.served_model }),
            input: inputs.map((i) => i[0]!),
            // The model's own length, keeping the last tokens: the latest dialogue and the candidate.
            truncate_prompt_tokens: -1,
            truncation_side: 'left',
            ...(raw && { use_activation: false }),
          }
        : { inputs, truncate: true, truncation_direction: 'Left', raw_scores: raw };
    const [answer, local] = await Promise.all([this.call(body, stop), this.local?.verify({ task, context, candidates }, stop)]);
    const read = api === 'vllm' ? this.fromVllm(answer, candidates.length) : this.fromTei(answer, candidates.length);
    return {
      candidates: read.map(({ x, dimensions }, i) => {
        const dims = dimensions ?? local?.candidates[i]?.dimensions;
        return { ...(raw ? { score: Math.min(1, Math.max(0, x)), logit: x } : { score: x, logit: logitOf(x) }), ...(dims && { dimensions: dims }) };
      }),
      // The server truncates (from the left) to its model's length and does not say whether it did.
      truncated: { task: false, context: false, candidates: [] },
    };
  }

  private async call(body: unknown, stop: () => boolean): Promise<unknown> {
    const { retries, timeout_ms: timeoutMs, api_key: key } = this.manifest;
    const payload = JSON.stringify(body);
    let last = '';
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await pause(BACKOFF_MS * 2 ** (attempt - 1), stop);
      if (stop()) throw new Abandoned();
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(new Retryable(`no answer within ${timeoutMs} ms`)), timeoutMs);
      const poll = setInterval(() => stop() && abort.abort(new Abandoned()), STOP_POLL_MS);
      try {
        const res = await fetch(this.endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key && { authorization: `Bearer ${key}` }) },
          body: payload,
          signal: abort.signal,
        });
        const text = await res.text();
        // 429 and 503 say the batch was not taken on: sending it again costs the server nothing twice.
        if (res.status === 429 || res.status === 503) throw new Retryable(`answered HTTP ${res.status}: ${text.slice(0, 200)}`);
        if (!res.ok) throw this.unavailable(`answered HTTP ${res.status}: ${text.slice(0, 200)} (${attempt + 1} attempts)`);
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw this.unavailable(`answered with something that is not JSON: ${JSON.stringify(text.slice(0, 100))}`);
        }
      } catch (e) {
        const reason = abort.signal.reason as unknown;
        if (reason instanceof Abandoned || stop()) throw new Abandoned();
        if (e instanceof VerifierUnavailable) throw e;
        // A call that timed out may still be running on the server: sent again, a stalled server would get the batch once per retry.
        if (reason instanceof Retryable) throw this.unavailable(`${reason.message}; not sent again (${attempt + 1} attempts)`);
        if (e instanceof Retryable) last = e.message;
        // fetch's TypeError: only a connection that failed before the request went out is tried again.
        else if (e instanceof TypeError && NOT_SENT.has(causeOf(e))) last = `cannot be reached: ${causeOf(e)}`;
        else if (e instanceof TypeError) throw this.unavailable(`failed mid-call: ${causeOf(e)} (${attempt + 1} attempts)`);
        else throw e;
      } finally {
        clearTimeout(timer);
        clearInterval(poll);
      }
    }
    throw this.unavailable(`${last} (${retries + 1} attempts)`);
  }

  private unavailable(what: string): VerifierUnavailable {
    return new VerifierUnavailable(`the verifier server (${this.manifest.api}, ${this.endpoint}) ${what}`);
  }

  /** vLLM: data[i].probs, by index; one number per candidate, and the dimensions' classes when the manifest names them. */
  private fromVllm(answer: unknown, n: number): Read[] {
    const data = (answer as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length !== n) throw this.unavailable(`answered without one "data" item per candidate (${n})`);
    const out = new Array<Read>(n);
    for (const item of data as { index?: unknown; probs?: unknown }[]) {
      const { index, probs } = item ?? {};
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= n || out[index] !== undefined) {
        throw this.unavailable('answered with a "data" item whose index is missing, out of range or repeated');
      }
      if (!Array.isArray(probs) || probs.length === 0) throw this.unavailable('answered with a "data" item without "probs"');
      const label = this.manifest.label as number | undefined;
      if (label === undefined && probs.length > 1) {
        throw this.unavailable(`serves a model with ${probs.length} classes: set "label" in manifest.json to the index of the good class`);
      }
      const classOf = (k: number, what: string) => {
        if (k >= probs.length) throw this.unavailable(`serves a model with ${probs.length} classes, and ${what} is ${k}`);
        return this.checked(probs[k]);
      };
      out[index] = { x: classOf(label ?? 0, '"label"'), dimensions: this.dimensionsOf((k) => classOf(k as number, `a dimension's class`)) };
    }
    return out;
  }

  /** TEI: one list of {label, score} per input, in input order. */
  private fromTei(answer: unknown, n: number): Read[] {
    if (!Array.isArray(answer) || answer.length !== n || !answer.every(Array.isArray)) {
      throw this.unavailable(`answered without one list of predictions per candidate (${n})`);
    }
    return (answer as unknown[][]).map((predictions) => {
      const label = this.manifest.label as string | undefined;
      if (label === undefined && predictions.length !== 1) {
        throw this.unavailable(`serves a model with ${predictions.length} labels: set "label" in manifest.json to the good one's name`);
      }
      const scoreOf = (name: string | undefined) => {
        const p = (name === undefined ? predictions[0] : predictions.find((x) => (x as { label?: unknown })?.label === name)) as
          | { score?: unknown }
          | undefined;
        if (!p) throw this.unavailable(`answered without the label ${JSON.stringify(name)}`);
        return this.checked(p.score);
      };
      return { x: scoreOf(label), dimensions: this.dimensionsOf((c) => scoreOf(c as string)) };
    });
  }

  /** The manifest's dimensions, each read from its class; undefined without. */
  private dimensionsOf(read: (cls: number | string) => number): Record<string, number> | undefined {
    const classes = this.manifest.dimensions;
    return classes && Object.fromEntries(Object.entries(classes).map(([name, cls]) => [name, read(cls)]));
  }

  private checked(x: unknown): number {
    if (typeof x !== 'number' || !Number.isFinite(x)) throw this.unavailable(`answered a score that is not a number: ${JSON.stringify(x)}`);
    if (this.manifest.output === 'probability' && !(x >= 0 && x <= 1)) throw this.unavailable(`answered the probability ${x}, not a value in [0, 1]`);
    return x;
  }
}

/** GET {url}/health: null while the server serves, otherwise why not (for /ready). */
export async function remoteHealth(manifest: RemoteManifest): Promise<string | null> {
  const url = `${manifest.url.replace(/\/+$/, '')}/health`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(Math.min(2000, manifest.timeout_ms)) });
    await res.body?.cancel();
    return res.ok ? null : `the verifier server (${manifest.api}) answers ${url} with HTTP ${res.status}`;
  } catch (e) {
    const err = e as Error;
    return `the verifier server (${manifest.api}) at ${url} ${err.name === 'TimeoutError' ? 'does not answer' : `cannot be reached: ${causeOf(err)}`}`;
  }
}

const logitOf = (p: number): number => {
  const q = Math.min(1 - EPSILON, Math.max(EPSILON, p));
  return Math.log(q / (1 - q));
};

const causeOf = (e: Error): string => {
  const cause = e.cause as { code?: string; message?: string } | undefined;
  return cause?.code ?? cause?.message ?? e.message;
};

/** Waits `ms`, or less if the request is abandoned meanwhile. */
function pause(ms: number, stop: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      clearInterval(poll);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const poll = setInterval(() => stop() && done(), STOP_POLL_MS);
  });
}
