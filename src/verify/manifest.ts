import { z } from 'zod';

// A verifier directory holds manifest.json and the files it names. Two kinds:
// - embedding-head: an ONNX head over the response, the context and the task as sentence embeddings, with
//   the encoder directory it was trained with; the response may instead enter as token ids, through the
//   model's own fine-tuned encoder (the default model, trained in training/);
// - cross-encoder: a transformer exported to ONNX that reads the task, context and response as one token
//   sequence (Traver's template) and outputs one logit, served from its tokenizer.json.
const Common = {
  name: z.string().min(1),
  version: z.string().min(1),
  model: z.string().min(1).default('model.onnx'),
};

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

export const VerifierManifestSchema = z.discriminatedUnion('kind', [EmbeddingHeadManifestSchema, CrossEncoderManifestSchema]);
export type VerifierManifest = z.infer<typeof VerifierManifestSchema>;
export type EmbeddingHeadManifest = z.infer<typeof EmbeddingHeadManifestSchema>;
export type CrossEncoderManifest = z.infer<typeof CrossEncoderManifestSchema>;
