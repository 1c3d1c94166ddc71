// The text-metric tasks: /evaluate-text, its corpus form, and /evaluate-dialogue without the LLM judge.
import type { EvaluateDialogueRequest, EvaluateTextCorpusRequest, EvaluateTextRequest } from '../../contracts/evaluate.js';
import { evaluateDialogue } from '../../metrics/evaluate-dialogue.js';
import type { TextMetric } from '../../contracts/evaluate.js';
import { corpusScores, textScores } from '../../metrics/text-scores.js';
import { encoder } from './models.js';
import { task, type Stop } from './task.js';

export function textScoresTask(input: { body: EvaluateTextRequest; metrics: TextMetric[] }, stop: Stop) {
  return task(stop, () => textScores(input.body.hypothesis, input.body.references, input.metrics, input.body.options?.smooth), '$.hypothesis');
}

export function corpusScoresTask(input: { body: EvaluateTextCorpusRequest; metrics: TextMetric[] }, stop: Stop) {
  return task(stop, () => corpusScores(input.body.pairs, input.metrics, input.body.options?.smooth), '$.pairs');
}

/** Every metric but the LLM judge, which waits on the network and stays on the main thread. */
export function evaluateDialogueTask(body: EvaluateDialogueRequest, stop: Stop) {
  return task(stop, () => evaluateDialogue(body, { encoder, judge: null }), '$.messages');
}
