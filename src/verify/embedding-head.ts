import { resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { SentenceEncoder } from '../text/encoder.js';
import { sessionOptions } from '../text/onnx-session.js';
import { fitContext, RESPONSE_FEATURE_NAMES, responseFeatures, taskText } from './format.js';
import type { EmbeddingHeadManifest } from './manifest.js';
import { sigmoid, type EncoderAt, type TurnVerifier, type Verification, type VerifyInput } from './model.js';

/**
 * The default verifier: an ONNX head over sentence embeddings. Inputs response [n, d], context [1, d],
 * task [1, d] and extra [n, k] (hand features); output logit [n, 1]. The task and the context are
 * embedded once per request, whatever the number of candidates.
 */
export class EmbeddingHeadVerifier implements TurnVerifier {
  readonly info;

  private constructor(
    private readonly manifest: EmbeddingHeadManifest,
    private readonly encoder: SentenceEncoder,
    private readonly session: ort.InferenceSession,
  ) {
    this.info = { name: manifest.name, version: manifest.version, kind: manifest.kind };
  }

  static async load(dir: string, manifest: EmbeddingHeadManifest, encoderAt: EncoderAt, threads = 0): Promise<EmbeddingHeadVerifier> {
    const encoder = await encoderAt(resolve(dir, manifest.encoder));
    const session = await ort.InferenceSession.create(resolve(dir, manifest.model), sessionOptions(threads));
    const missing = ['response', 'context', 'task', 'extra'].filter((n) => !session.inputNames.includes(n));
    if (missing.length) throw new Error(`the head has no input ${missing.join(', ')}`);
    if (!session.outputNames.includes('logit')) throw new Error('the head has no output "logit"');
    // The head was trained on the hand features of one version of responseFeatures: the same must be served.
    if (manifest.extra_features.join() !== RESPONSE_FEATURE_NAMES.join()) {
      throw new Error(
        `the head was trained on the features [${manifest.extra_features.join(', ')}]; this service computes [${RESPONSE_FEATURE_NAMES.join(', ')}]`,
      );
    }
    return new EmbeddingHeadVerifier(manifest, encoder, session);
  }

  async verify({ task, context, candidates }: VerifyInput): Promise<Verification> {
    const taskIn = taskText(task);
    const ctx = fitContext(context, this.manifest.context_chars, (text) => !this.encoder.encode(text).truncated);
    const [t, c, ...r] = await this.encoder.embed([taskIn, ctx.text, ...candidates]);
    const d = t!.length;
    const n = candidates.length;
    const response = new Float32Array(n * d);
    r.forEach((v, i) => {
      response.set(v, i * d);
    });
    const names = this.manifest.extra_features;
    const extras = candidates.map((text) => responseFeatures(text, task));
    const out = await this.session.run(
      {
        response: new ort.Tensor('float32', response, [n, d]),
        context: new ort.Tensor('float32', c!, [1, d]),
        task: new ort.Tensor('float32', t!, [1, d]),
        extra: new ort.Tensor('float32', Float32Array.from(extras.flat()), [n, names.length]),
      },
      ['logit'],
    );
    const logits = out.logit!.data as Float32Array;
    return {
      candidates: candidates.map((_, i) => ({
        score: sigmoid(logits[i]!),
        logit: logits[i]!,
        features: Object.fromEntries(names.map((name, k) => [name, extras[i]![k]!])),
      })),
      truncated: {
        task: this.encoder.encode(taskIn).truncated,
        context: ctx.truncated,
        candidates: candidates.flatMap((text, i) => (this.encoder.encode(text).truncated ? [i] : [])),
      },
    };
  }
}
