import { resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { SentenceEncoder } from '../text/encoder.js';
import { paddedIds, sessionOptions } from '../text/onnx-session.js';
import { codeDomain, rescaled } from './code-domain.js';
import { fitContext, RESPONSE_FEATURE_NAMES, responseFeatures, taskText } from './format.js';
import type { EmbeddingHeadManifest } from './manifest.js';
import { sigmoid, type EncoderAt, type TurnVerifier, type Verification, type VerifyInput } from './model.js';

/**
 * An ONNX head over sentence embeddings. Inputs context [1, d], task [1, d], extra [n, k] (hand features)
 * and the candidates, either as embeddings (response [n, d]) or, for a model with its own fine-tuned
 * candidate encoder, as token ids (response_ids, response_mask [n, L]); outputs logit [n, 1] and, when the
 * manifest names them, dimensions [n, m]. The task and the context are embedded once per request.
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
    const response = manifest.response_input === 'tokens' ? ['response_ids', 'response_mask'] : ['response'];
    const missing = [...response, 'context', 'task', 'extra'].filter((n) => !session.inputNames.includes(n));
    if (missing.length) throw new Error(`the head has no input ${missing.join(', ')}`);
    const outputs = ['logit', ...(manifest.dimensions.length ? ['dimensions'] : []), ...(manifest.code_logit ? [manifest.code_logit] : [])];
    const absent = outputs.filter((n) => !session.outputNames.includes(n));
    if (absent.length) throw new Error(`the head has no output ${absent.map((n) => `"${n}"`).join(', ')}`);
    // The head was trained on the hand features of one version of responseFeatures: the same must be served.
    if (manifest.extra_features.join() !== RESPONSE_FEATURE_NAMES.join()) {
      throw new Error(
        `the head was trained on the features [${manifest.extra_features.join(', ')}]; this service computes [${RESPONSE_FEATURE_NAMES.join(', ')}]`,
      );
    }
    return new EmbeddingHeadVerifier(manifest, encoder, session);
  }

  async verify({ task, context, candidates }: VerifyInput): Promise<Verification> {
    // Every text is tokenized once: for `truncated`, for fitting the context, and for the encoder.
    const encode = this.encoder.encodeOnce();
    const taskIn = taskText(task);
    const ctx = fitContext(context, this.manifest.context_chars, (text) => !encode(text).truncated);
    const tokens = this.manifest.response_input === 'tokens';
    const [t, c, ...r] = await this.encoder.embed(tokens ? [taskIn, ctx.text] : [taskIn, ctx.text, ...candidates], (text) => encode(text).ids);
    const d = t!.length;
    const n = candidates.length;
    const names = this.manifest.extra_features;
    const extras = candidates.map((text) => responseFeatures(text, task));
    const dims = this.manifest.dimensions;
    const onCode = codeDomain(task, context);
    const logitName = (onCode && this.manifest.code_logit) || 'logit';
    const encoded = candidates.map(encode);
    let response: Record<string, ort.Tensor>;
    if (tokens) {
      const { ids, mask } = paddedIds(encoded.map((e) => e.ids));
      response = { response_ids: ids, response_mask: mask };
    } else response = { response: embeddings(r, d) };
    const out = await this.session.run(
      {
        ...response,
        context: new ort.Tensor('float32', c!, [1, d]),
        task: new ort.Tensor('float32', t!, [1, d]),
        extra: new ort.Tensor('float32', Float32Array.from(extras.flat()), [n, names.length]),
      },
      dims.length ? [logitName, 'dimensions'] : [logitName],
    );
    const logits = out[logitName]!.data as Float32Array;
    const probabilities = out.dimensions?.data as Float32Array | undefined;
    const scaling = onCode ? this.manifest.code_calibration?.[onCode] : undefined;
    const dimension = (i: number, k: number) => {
      const p = probabilities![i * dims.length + k]!;
      return scaling && dims[k] === 'reveals_answer' ? rescaled(p, scaling) : p;
    };
    return {
      candidates: candidates.map((_, i) => ({
        score: sigmoid(logits[i]!),
        logit: logits[i]!,
        features: Object.fromEntries(names.map((name, k) => [name, extras[i]![k]!])),
        ...(probabilities && { dimensions: Object.fromEntries(dims.map((name, k) => [name, dimension(i, k)])) }),
      })),
      truncated: {
        task: encode(taskIn).truncated,
        context: ctx.truncated,
        candidates: encoded.flatMap((e, i) => (e.truncated ? [i] : [])),
      },
    };
  }
}

const embeddings = (vectors: Float32Array[], d: number): ort.Tensor => {
  const flat = new Float32Array(vectors.length * d);
  vectors.forEach((v, i) => {
    flat.set(v, i * d);
  });
  return new ort.Tensor('float32', flat, [vectors.length, d]);
};
