import { untilAborted } from '../common/errors.js';
import type { EvaluateDialogueRequest, EvaluateTextCorpusRequest, EvaluateTextRequest, TextMetric } from '../contracts/evaluate.js';
import type { EvaluatePlanRequest } from '../contracts/evaluate-plan.js';
import { judgeInput } from '../metrics/evaluate-dialogue.js';
import { judgeConversation, judgeOff } from '../metrics/judge/client.js';
import type { Service } from './context.js';

const ALL: TextMetric[] = ['bleu', 'rouge', 'meteor'];

/** METEOR's WordNet, warmed at start: a request waits for it, or gets its load failure as a 503. */
const meteorReady = async (svc: Service, metrics: TextMetric[], signal: AbortSignal) => {
  if (metrics.includes('meteor')) await untilAborted(svc.wordnet.get(), signal);
};

/** /evaluate-text: one hypothesis against its references. */
export async function evaluateText(svc: Service, body: EvaluateTextRequest, signal: AbortSignal) {
  const metrics = body.metrics ?? ALL;
  await meteorReady(svc, metrics, signal);
  return svc.pool.run('textScoresTask', { body, metrics }, signal);
}

/** /evaluate-text/corpus: corpus BLEU over every pair, ROUGE and METEOR averaged over them. */
export async function evaluateCorpus(svc: Service, body: EvaluateTextCorpusRequest, signal: AbortSignal) {
  const metrics = body.metrics ?? ALL;
  await meteorReady(svc, metrics, signal);
  return svc.pool.run('corpusScoresTask', { body, metrics }, signal);
}

/** /evaluate-dialogue: the metrics on a worker while the LLM judge, when asked, waits on the network here. */
export async function evaluateDialogue(svc: Service, body: EvaluateDialogueRequest, signal: AbortSignal) {
  const judge = svc.judge;
  if (body.options?.judge && !judge) throw judgeOff();
  if (body.reference !== undefined) {
    await untilAborted(svc.encoder.get(), signal); // the token match needs it
    await meteorReady(svc, ALL, signal);
  }
  let judging: ReturnType<typeof judgeConversation> | undefined;
  if (body.options?.judge && judge) {
    const { conversation, reference } = judgeInput(body);
    judging = judgeConversation(judge, conversation, reference, signal);
  }
  const [metrics, judged] = await Promise.all([svc.pool.run('evaluateDialogueTask', body, signal), judging]);
  return { metrics, judge: judged };
}

/** /evaluate-plan: the A.4 metrics of every readable plan; an unreadable one is reported with its violations. */
export async function evaluatePlans(svc: Service, body: EvaluatePlanRequest, signal: AbortSignal) {
  await untilAborted(svc.encoder.get(), signal);
  const { parsed, goldParsed, readable, report } = await svc.pool.run('evaluatePlansTask', { body, limits: svc.planLimits }, signal);
  const metricsOf = new Map(readable.map((index, i) => [index, report.plans[i]!]));
  return {
    plans: parsed.map((p, index) =>
      p.ok ? { index, parsed: true as const, metrics: metricsOf.get(index)! } : { index, parsed: false as const, violations: p.violations },
    ),
    ...(goldParsed ? { gold: goldParsed.ok ? { parsed: true as const } : { parsed: false as const, violations: goldParsed.violations } } : {}),
    cross: report.cross ? { plans: readable, ...report.cross } : null,
    options: report.options,
  };
}
