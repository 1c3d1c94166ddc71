import { CRITERIA, judgePrompt, parseScore, type Criterion } from './rubric.js';
import { bounded } from '../../common/bounded.js';
import { InvalidRequest } from '../../common/errors.js';

/** A request's `options.judge` on a service without a judge: one answer for every route that has the option. */
export const judgeOff = (): InvalidRequest =>
  new InvalidRequest('the LLM judge is off on this service', [
    { path: '$.options.judge', message: 'set JUDGE_BASE_URL (an OpenAI-compatible API) to enable it' },
  ]);

export interface JudgeConfig {
  /** An OpenAI-compatible API root, e.g. http://localhost:8000/v1 (vLLM), http://localhost:11434/v1 (Ollama). */
  baseUrl: string;
  model: string;
  apiKey?: string;
  concurrency: number;
  timeoutMs: number;
  retries: number;
}

export interface CriterionScore {
  criterion: Criterion;
  score: number | null;
  /** The judge's reply, or why there is no score. */
  reply?: string;
  error?: string;
  attempts: number;
}

class Retryable extends Error {
  override name = 'Retryable';
}

/**
 * One chat completion, retried on timeouts, network errors, 429 and 5xx with exponential back-off. `stop`,
 * the request's own signal, ends it at once with its reason: a request past its deadline waits for no judge.
 */
export async function complete(
  config: JudgeConfig,
  messages: { role: string; content: string }[],
  stop?: AbortSignal,
): Promise<{ content: string; attempts: number }> {
  let last: Error = new Error('no attempt');
  for (let attempt = 1; attempt <= config.retries + 1; attempt++) {
    stop?.throwIfAborted();
    try {
      const timeout = AbortSignal.timeout(config.timeoutMs);
      const res = await fetch(`${config.baseUrl.replace(/\/$/, '')}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
        body: JSON.stringify({ model: config.model, messages, temperature: 0, max_tokens: 64 }),
        signal: stop ? AbortSignal.any([stop, timeout]) : timeout,
      });
      if (res.status === 429 || res.status >= 500) throw new Retryable(`judge answered HTTP ${res.status}`);
      if (!res.ok) throw new Error(`judge answered HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
      const body = (await res.json()) as { choices?: { message?: { content?: unknown } }[] };
      const content = body.choices?.[0]?.message?.content;
      if (typeof content !== 'string') throw new Error('judge reply has no choices[0].message.content');
      return { content, attempts: attempt };
    } catch (e) {
      stop?.throwIfAborted();
      const err = e as Error;
      const retryable = err instanceof Retryable || err.name === 'TimeoutError' || err.name === 'AbortError' || err instanceof TypeError;
      last = err.name === 'TimeoutError' ? new Error(`judge did not answer within ${config.timeoutMs} ms`) : err;
      if (!retryable) throw Object.assign(last, { attempts: attempt });
      if (attempt <= config.retries) await new Promise((r) => setTimeout(r, 100 * 2 ** (attempt - 1)));
    }
  }
  throw Object.assign(last, { attempts: config.retries + 1 });
}

/** The eight criteria, one independent call each; a criterion whose call fails has score null and the error. */
export function judgeConversation(config: JudgeConfig, conversation: string, reference?: string, stop?: AbortSignal): Promise<CriterionScore[]> {
  return bounded(
    config.concurrency,
    CRITERIA.map((criterion) => async (): Promise<CriterionScore> => {
      const { system, user } = judgePrompt(criterion, conversation, reference);
      try {
        const { content, attempts } = await complete(
          config,
          [
            { role: 'system', content: system },
            { role: 'user', content: user },
          ],
          stop,
        );
        const score = parseScore(content);
        return score === null
          ? { criterion, score, reply: content, error: 'no score 1-5 in the reply', attempts }
          : { criterion, score, reply: content, attempts };
      } catch (e) {
        if (stop?.aborted) throw stop.reason;
        return { criterion, score: null, error: (e as Error).message, attempts: (e as { attempts?: number }).attempts ?? 1 };
      }
    }),
  );
}
