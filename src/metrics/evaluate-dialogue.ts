import type { EvaluateDialogueRequest } from '../contracts/evaluate.js';
import { completed, diversity, normalizeRole, questionRate, type Message } from './dialogue/conversation.js';
import { cognitiveLoadTruncate, outcomeRate, passAtK, recallAtK } from './dialogue/dict.js';
import { tokenMatchScore, type TokenStateSource } from './dialogue/token-match.js';
import { judgeConversation, type JudgeConfig } from './judge/client.js';
import { DEFINITIONS, METRICS_VERSION, textScores } from './text-scores.js';

const DIALOGUE_DEFINITIONS = {
  question: 'WikiHowAgent Question: share of learner utterances containing "?"',
  completion: 'WikiHowAgent Completion: the last message ends with the token "finished" (any case)',
  diversity: 'WikiHowAgent Diversity: distinct / all word 2-grams over the teacher utterances',
  token_match: 'BERTScore-style greedy token matching F1 on USE-lite token states (no idf, no rescaling; not roberta-large BERTScore)',
};

const referenceText = (body: EvaluateDialogueRequest) =>
  body.reference === undefined ? undefined : Array.isArray(body.reference) ? body.reference.join('\n') : body.reference;
const messagesOf = (body: EvaluateDialogueRequest): Message[] => body.messages.map((m) => ({ role: normalizeRole(m.role)!, text: m.text }));

/** What the LLM judge reads: the transcript with speaker names, and the tutorial. */
export function judgeInput(body: EvaluateDialogueRequest): { conversation: string; reference: string | undefined } {
  return {
    conversation: messagesOf(body)
      .map((m) => `${m.role === 'teacher' ? 'Teacher' : 'Learner'}: ${m.text}`)
      .join('\n'),
    reference: referenceText(body),
  };
}

/**
 * Every metric of one conversation. Text-overlap metrics compare the teacher's utterances (one per line)
 * with the tutorial (its steps one per line); without a tutorial they are null with the reason.
 */
export async function evaluateDialogue(body: EvaluateDialogueRequest, deps: { encoder: () => Promise<TokenStateSource>; judge: JudgeConfig | null }) {
  const messages = messagesOf(body);
  const teacher = messages.filter((m) => m.role === 'teacher').map((m) => m.text);
  const reference = referenceText(body);
  const hypothesis = teacher.join('\n');
  const smooth = body.options?.smooth ?? 'exp';
  const div = diversity(messages);
  const q = questionRate(messages);
  const noReference = (definition: string) => ({ definition, value: null, reason: 'no reference tutorial given' });
  const scores = reference === undefined ? undefined : textScores(hypothesis, [reference], ['bleu', 'rouge', 'meteor'], smooth);
  const tokenMatch = reference === undefined ? undefined : await tokenMatchScore(await deps.encoder(), hypothesis, reference);
  const dict = body.options?.dict;
  return {
    metrics: {
      question: { definition: DIALOGUE_DEFINITIONS.question, value: q, ...(q === null ? { reason: 'no learner utterance' } : {}) },
      completion: { definition: DIALOGUE_DEFINITIONS.completion, value: completed(messages) ? 1 : 0 },
      diversity: {
        definition: DIALOGUE_DEFINITIONS.diversity,
        value: div.value,
        distinct: div.distinct,
        total: div.total,
        ...(div.value === null ? { reason: 'no teacher bigram' } : {}),
      },
      bleu: scores
        ? { definition: scores.bleu!.definition, value: scores.bleu!.score, details: scores.bleu }
        : noReference(DEFINITIONS.bleu(smooth, 'sentence')),
      rouge: scores
        ? { definition: DEFINITIONS.rouge, value: scores.rouge!.no_stemmer.rougeL.fmeasure, details: scores.rouge }
        : noReference(DEFINITIONS.rouge),
      meteor: scores ? { definition: DEFINITIONS.meteor, value: scores.meteor!.score, details: scores.meteor } : noReference(DEFINITIONS.meteor),
      token_match: tokenMatch
        ? {
            definition: DIALOGUE_DEFINITIONS.token_match,
            value: tokenMatch.f1,
            precision: tokenMatch.precision,
            recall: tokenMatch.recall,
            truncated: tokenMatch.truncated,
          }
        : noReference(DIALOGUE_DEFINITIONS.token_match),
    },
    ...(dict
      ? {
          dict: {
            ...(dict.pass_at_k ? { pass_at_k: dict.pass_at_k.map((p) => ({ ...p, value: passAtK(p.n, p.c, p.k) })) } : {}),
            ...(dict.recall_at_k
              ? { recall_at_k: { k: dict.recall_at_k.k, value: recallAtK(dict.recall_at_k.predicted, dict.recall_at_k.reference, dict.recall_at_k.k) } }
              : {}),
            ...(dict.outcome ? { outcome_rate: outcomeRate(dict.outcome.pre, dict.outcome.post) } : {}),
            ...(dict.cognitive_load ? { cognitive_load: teacher.map((t) => cognitiveLoadTruncate(t)) } : {}),
          },
        }
      : {}),
    ...(body.options?.judge && deps.judge ? { judge: await judgeConversation(deps.judge, judgeInput(body).conversation, reference) } : {}),
    counts: { messages: messages.length, teacher: teacher.length, learner: messages.length - teacher.length },
    versions: { metrics: METRICS_VERSION },
  };
}
