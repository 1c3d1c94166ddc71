// The LLM judge of /score-plan (`options.judge`), called from the main thread while no worker waits on it.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { bounded } from '../../common/bounded.js';
import { ServiceError } from '../../common/errors.js';
import { complete, type JudgeConfig } from '../../metrics/judge/client.js';
import { judgedRaw, PLAN_JUDGE_VERSION, planJudgeMessages, readVerdict, type PlanVerdict } from '../../rewards/judge/plan-rubric.js';
import type { Judgement } from './plan-json.js';

/** The judge server is down, too slow, or answered without a rating. */
class JudgeUnavailable extends ServiceError {
  override name = 'JudgeUnavailable';
  constructor(message: string) {
    super('judge_unavailable', message);
  }
}

// A verdict is a few hundred bytes; a GRPO step's completions rarely repeat, so the cache serves a request
// judged again (a run's λ_hard changed while it waited, a replay rebuilt after a restart) and repeated plans.
const CACHED_VERDICTS = 10_000;

export class PlanJudge {
  private readonly cache = new LRUCache<string, PlanVerdict>({ max: CACHED_VERDICTS });

  constructor(readonly config: JudgeConfig) {}

  /** One verdict per prompt, in order: each distinct prompt asked once, at most JUDGE_CONCURRENCY at a time. */
  async verdicts(prompts: readonly string[], stop: AbortSignal): Promise<PlanVerdict[]> {
    const keys = prompts.map((p) => this.keyOf(p));
    const missing = [...new Set(keys.filter((k) => !this.cache.has(k)))];
    const promptOf = new Map(keys.map((k, i) => [k, prompts[i]!]));
    // The first call that fails stops the others: the request fails whole.
    const failed = new AbortController();
    const either = AbortSignal.any([stop, failed.signal]);
    await bounded(
      this.config.concurrency,
      missing.map((key) => async () => {
        try {
          this.cache.set(key, await this.ask(promptOf.get(key)!, either));
        } catch (e) {
          failed.abort(e);
          throw e;
        }
      }),
    ).catch((e: unknown) => {
      throw stop.aborted ? stop.reason : e;
    });
    return keys.map((k) => this.cache.get(k)!);
  }

  private async ask(prompt: string, stop: AbortSignal): Promise<PlanVerdict> {
    let reply: string;
    try {
      reply = (await complete(this.config, planJudgeMessages(prompt), stop)).content;
    } catch (e) {
      if (stop.aborted) throw stop.reason;
      throw new JudgeUnavailable(`the LLM judge (${this.config.baseUrl}) ${(e as Error).message}`);
    }
    const verdict = readVerdict(reply, this.config.model);
    if (verdict === null)
      throw new JudgeUnavailable(`the LLM judge (${this.config.baseUrl}) answered without a rating 1-5: ${JSON.stringify(reply.slice(0, 200))}`);
    return verdict;
  }

  private keyOf(prompt: string): string {
    return createHash('sha256').update(`${PLAN_JUDGE_VERSION}\n${this.config.model}\n${prompt}`).digest('base64url');
  }
}

/** Every plan the workers read a judge prompt for, its raw rewards scaled by its verdict (§10.7). */
export async function judgeJudgement(judge: PlanJudge, judgement: Judgement, stop: AbortSignal): Promise<Judgement> {
  const asked = judgement.groups.flatMap((g) => g.plans.filter((p) => p.judge_prompt !== undefined));
  const verdicts = await judge.verdicts(
    asked.map((p) => p.judge_prompt!),
    stop,
  );
  asked.forEach((p, i) => {
    p.raw = judgedRaw(p.raw, verdicts[i]!);
    p.judge = verdicts[i]!;
    p.judge_prompt = undefined;
  });
  return judgement;
}
