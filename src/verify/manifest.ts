import { z } from 'zod';

// A verifier directory holds manifest.json and the files it names. Two kinds:
// - embedding-head: an ONNX head over the response, the context and the task as sentence embeddings, with
//   the encoder directory it was trained with; the response may instead enter as token ids, through the
//   model's own fine-tuned encoder (the default model, trained in training/);
// - cross-encoder: a transformer exported to ONNX that reads the task, context and response as one token
//   sequence (Traver's template) and outputs one logit, served from its tokenizer.json;
// - remote: a sequence-classification / reward model served by vLLM (`/classify`) or Hugging Face
//   text-embeddings-inference (`/predict`), called over HTTP with Traver's input rendered to text
//   (remote.ts); the directory holds only manifest.json.
const Common = {
  name: z.string().min(1),
  version: z.string().min(1),
  model: z.string().min(1).default('model.onnx'),
};

// a = 0 where the model's probability says nothing on the domain: every candidate gets the base rate.
const PlattScaling = z.object({ a: z.number().nonnegative(), c: z.number() }).strict();

const EmbeddingHeadManifestSchema = z.object({
  kind: z.literal('embedding-head'),
  ...Common,
  /** The sentence encoder the head was trained on, relative to the verifier directory. */
  encoder: z.string().min(1),
  /** Characters of dialogue kept, from the end, before encoding (the length the head was trained with). */
  context_chars: z.number().int().positive(),
  /** Names of the hand features `responseFeatures` returns, in the order of the head's `extra` input. */
  extra_features: z.array(z.string()),
  /**
   * What the model reads of each candidate: its sentence embedding from the encoder (`response`), or its
   * token ids from the encoder's tokenizer (`response_ids`, `response_mask`) when the model carries its
   * own fine-tuned copy of the encoder for candidates.
   */
  response_input: z.enum(['embedding', 'tokens']).default('embedding'),
  /** Names of the columns of the model's `dimensions` output (one probability per labelled quality). */
  dimensions: z.array(z.string().min(1)).default([]),
  /**
   * Platt scaling σ(a·logit(p) + c) of `reveals_answer` on code tasks (code-domain.ts), fit on code with
   * known bugs (training/code_calibration.py) rather than on MRBench's math.
   */
  code_calibration: z.object({ with_reference: PlattScaling, student_code_only: PlattScaling }).strict().optional(),
  /**
   * The output that scores code tasks (code-domain.ts) instead of `logit`: its guidance and actionability
   * layers were also fit on hard negatives, so a question appended to a wrong turn does not lift it
   * (training/code_score.py).
   */
  code_logit: z.string().min(1).optional(),
});

const CrossEncoderManifestSchema = z.object({
  kind: z.literal('cross-encoder'),
  ...Common,
  tokenizer: z.string().min(1).default('tokenizer.json'),
  /** Model input length in tokens, special tokens included. */
  max_length: z.number().int().min(4),
  /** The output holding one logit per row ([batch] or [batch, 1]); the model's first output by default. */
  output: z.string().optional(),
  /** Apply a sigmoid to the logit (false when the model already outputs a probability). */
  sigmoid: z.boolean(),
  /**
   * Traver's input template as a text pair (token_type_ids 0 and 1, the tokenizer's special tokens).
   * Placeholders: {task}, {knowledge} (dependencies and solution steps), {context} (the dialogue, one
   * "Tutor: …"/"Student: …" line per turn) in `first`; {response} in `second`. Too long an input is cut
   * from the left of `first`, so the latest dialogue and the response are kept.
   */
  template: z.object({
    first: z
      .string()
      .min(1)
      .refine((t) => !t.includes('{response}'), '{response} belongs in template.second'),
    second: z.string().refine((t) => t.includes('{response}'), 'template.second must contain {response}'),
  }),
});

/** Traver's order as one text: the task and its knowledge, the dialogue, then the candidate as the tutor's next turn. */
export const REMOTE_TEMPLATE = '{task}\n{knowledge}\n{context}\nTutor: {response}';

const RemoteManifestSchema = z
  .object({
    kind: z.literal('remote'),
    name: z.string().min(1),
    version: z.string().min(1),
    /** The server's root, e.g. http://localhost:8000 (vLLM) or http://localhost:8080 (TEI). */
    url: z.url({ protocol: /^https?$/ }),
    /** vllm: POST {url}/classify; tei: POST {url}/predict. */
    api: z.enum(['vllm', 'tei']),
    /** The model name sent to vLLM (`model`); unset: the server's only model. */
    served_model: z.string().min(1).optional(),
    /**
     * Traver's input: `first` with {task}, {knowledge}, {context} and {response}, one text per candidate;
     * with `second` (TEI only), the text pair [first, second] instead, {response} in `second`.
     */
    template: z.object({ first: z.string().min(1), second: z.string().min(1).optional() }).default({ first: REMOTE_TEMPLATE }),
    /**
     * What the server's number means: `probability`, the server's own activation (a sigmoid for a
     * one-label head, a softmax over labels otherwise: then `label` picks the class); `value`, the raw
     * output taken as the turn value and clamped to [0, 1] (a regression head trained with MSE on turn values).
     */
    output: z.enum(['probability', 'value']).default('probability'),
    /** The class whose probability is the score when the model has several: vLLM its index, TEI its name. */
    label: z.union([z.number().int().min(0), z.string().min(1)]).optional(),
    /**
     * The served model's other classes that are labelled qualities, reported as `dimensions`: dimension name →
     * its class (vLLM its index, TEI its label), e.g. {"reveals_answer": 2}.
     */
    dimensions: z.record(z.string().min(1), z.union([z.number().int().min(0), z.string().min(1)])).optional(),
    /**
     * For a served model without them: a local verifier directory (relative to this one, or absolute) whose
     * dimension predictions are reported beside the remote score, e.g. "../verifier".
     */
    dimensions_from: z.string().min(1).optional(),
    /** Longest one call may take (the request's deadline cuts it shorter). */
    timeout_ms: z.number().int().positive().default(10_000),
    /** Retries of a call that was not taken on (the connection failed before sending, or 429/503), with exponential back-off; a call that timed out is never sent again. */
    retries: z.number().int().min(0).max(10).default(2),
    /** Bearer token sent as `Authorization`, if the server needs one. */
    api_key: z.string().min(1).optional(),
  })
  .refine((m) => (m.template.second ?? m.template.first).includes('{response}'), {
    message: 'the template must contain {response} (in `second` when there is one)',
    path: ['template'],
  })
  .refine((m) => !(m.template.second && m.template.first.includes('{response}')), { message: '{response} belongs in template.second', path: ['template'] })
  .refine((m) => m.api === 'tei' || !m.template.second, { message: "vLLM's /classify takes one text per input: no template.second", path: ['template'] })
  .refine((m) => m.label === undefined || typeof m.label === (m.api === 'vllm' ? 'number' : 'string'), {
    message: 'label is the class index for vllm, the label name for tei',
    path: ['label'],
  })
  .refine((m) => Object.values(m.dimensions ?? {}).every((c) => typeof c === (m.api === 'vllm' ? 'number' : 'string')), {
    message: 'a dimension is a class index for vllm, a label name for tei',
    path: ['dimensions'],
  })
  .refine((m) => !(m.dimensions && m.dimensions_from), {
    message: 'dimensions come from the served model or from dimensions_from, not both',
    path: ['dimensions_from'],
  });

export const VerifierManifestSchema = z.discriminatedUnion('kind', [EmbeddingHeadManifestSchema, CrossEncoderManifestSchema, RemoteManifestSchema]);
export type VerifierManifest = z.infer<typeof VerifierManifestSchema>;
export type EmbeddingHeadManifest = z.infer<typeof EmbeddingHeadManifestSchema>;
export type CrossEncoderManifest = z.infer<typeof CrossEncoderManifestSchema>;
export type RemoteManifest = z.infer<typeof RemoteManifestSchema>;
