import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { LRUCache } from 'lru-cache';
import * as ort from 'onnxruntime-node';
import { z } from 'zod';
import { lengthBatches } from './length-batches.js';
import { paddedIds, sessionOptions } from './onnx-session.js';

// A sentence encoder on onnxruntime-node: a directory with tokenizer.json, model.onnx and, optionally,
// manifest.json. Without a manifest the directory is taken for a Hugging Face-style export (for example
// all-MiniLM-L6-v2): special tokens added, mean pooling of the first output over the attention mask.
const EncoderManifestSchema = z.object({
  name: z.string(),
  version: z.string(),
  /** model: the graph outputs the sentence embedding itself; mean: mean-pool the token states. */
  pooling: z.enum(['model', 'mean']),
  max_tokens: z.number().int().positive(),
  add_special_tokens: z.boolean(),
  normalize: z.boolean(),
  outputs: z.object({ sentence: z.string().optional(), tokens: z.string().optional() }),
  /**
   * Order adjacent pieces that are powers of one string ("m", "mm") longest first. Those are the only
   * exact ties between optimal Unigram segmentations, and Hugging Face's Viterbi breaks them the other
   * way from the SentencePiece-style reference a converted model was trained with.
   */
  longest_first_ties: z.boolean().default(false),
});
export type EncoderManifest = z.infer<typeof EncoderManifestSchema>;

export interface TokenStates {
  ids: number[];
  tokens: string[];
  /** One vector per token (before pooling), for token-level matching metrics. */
  states: Float32Array[];
  truncated: boolean;
}

export interface EncoderOptions {
  cacheSize: number;
  batchSize: number;
  /** onnxruntime intra-op threads; 0 or absent: the runtime's default (every core). */
  intraOpThreads?: number;
  /** Told, per embed call, how many texts came from the cache and how many were embedded. */
  onCacheLookups?: (hits: number, misses: number) => void;
}

export interface Encoded {
  ids: number[];
  truncated: boolean;
}

// What one more encoder run costs, in padded tokens' worth of encoder time. USE-lite on one intra-op thread:
// a run of one short text costs several tokens' worth more than its tokens, and small runs are also
// dearer a token than a batch.
const RUN_COST_TOKENS = 8;

// Past this many characters a text is cut before tokenizing: no text this long fits in max_tokens pieces.
const CHARS_PER_TOKEN_BOUND = 32;

export class SentenceEncoder {
  private session: Promise<ort.InferenceSession> | undefined;
  private readonly cache: LRUCache<string, Float32Array>;

  private constructor(
    readonly manifest: EncoderManifest,
    private readonly tokenizer: Tokenizer,
    private readonly pieces: ReadonlyMap<number, string>,
    private readonly modelPath: string,
    private readonly options: EncoderOptions,
  ) {
    this.cache = new LRUCache({ max: Math.max(1, options.cacheSize) });
  }

  static async fromDirectory(dir: string, options: EncoderOptions): Promise<SentenceEncoder> {
    const tokenizerJson: unknown = JSON.parse(await readFile(join(dir, 'tokenizer.json'), 'utf8'));
    const tokenizerConfig = await readFile(join(dir, 'tokenizer_config.json'), 'utf8')
      .then((t) => JSON.parse(t) as Record<string, unknown>)
      .catch(() => ({}) as Record<string, unknown>);
    const manifestText = await readFile(join(dir, 'manifest.json'), 'utf8').catch(() => undefined);
    const manifest = manifestText
      ? EncoderManifestSchema.parse(JSON.parse(manifestText))
      : {
          name: dir.split('/').filter(Boolean).at(-1) ?? 'encoder',
          version: 'unversioned',
          pooling: 'mean' as const,
          max_tokens: typeof tokenizerConfig.model_max_length === 'number' && tokenizerConfig.model_max_length < 1e6 ? tokenizerConfig.model_max_length : 512,
          add_special_tokens: true,
          normalize: true,
          outputs: {},
          longest_first_ties: false,
        };
    const tokenizer = new Tokenizer(tokenizerJson as object, tokenizerConfig);
    return new SentenceEncoder(manifest, tokenizer, piecesOf(tokenizerJson), join(dir, 'model.onnx'), options);
  }

  /** The ONNX session is created on first use, so a service that never embeds never loads the model. */
  private getSession(): Promise<ort.InferenceSession> {
    this.session ??= ort.InferenceSession.create(this.modelPath, sessionOptions(this.options.intraOpThreads));
    return this.session;
  }

  encode(text: string): Encoded {
    const limit = this.manifest.max_tokens * CHARS_PER_TOKEN_BOUND;
    const cut = text.length > limit;
    let ids = this.tokenizer.encode(cut ? text.slice(0, limit) : text, { add_special_tokens: this.manifest.add_special_tokens }).ids;
    if (this.manifest.longest_first_ties) ids = longestFirstTies(ids, this.pieces);
    const truncated = cut || ids.length > this.manifest.max_tokens;
    return { ids: ids.length > this.manifest.max_tokens ? ids.slice(0, this.manifest.max_tokens) : ids, truncated };
  }

  /**
   * `encode` for the texts of one request, each tokenized once however often it is asked for (fitting a
   * context, `truncated`, embedding); pass it on to `embed` as its `tokenize`.
   */
  encodeOnce(): (text: string) => Encoded {
    const seen = new Map<string, Encoded>();
    return (text) => {
      let e = seen.get(text);
      if (e === undefined) {
        e = this.encode(text);
        seen.set(text, e);
      }
      return e;
    };
  }

  /**
   * Sentence embeddings, batched, from the cache where a text was embedded before. `tokenize` gives a
   * text's ids: a caller that has tokenized a text already (for `truncated`, say) passes them on.
   */
  async embed(texts: readonly string[], tokenize: (text: string) => number[] = (text) => this.encode(text).ids): Promise<Float32Array[]> {
    assertTexts(texts);
    const out: Float32Array[] = new Array<Float32Array>(texts.length);
    const missing: number[] = [];
    texts.forEach((t, i) => {
      const hit = this.cache.get(t);
      if (hit) out[i] = hit;
      else missing.push(i);
    });
    this.options.onCacheLookups?.(texts.length - missing.length, missing.length);
    const unique = [...new Set(missing.map((i) => texts[i]!))].map((text) => ({ text, ids: tokenize(text) }));
    unique.sort((x, y) => x.ids.length - y.ids.length);
    const fresh = new Map<string, Float32Array>();
    for (const [start, end] of lengthBatches(
      unique.map((e) => e.ids.length),
      this.options.batchSize,
      RUN_COST_TOKENS,
    )) {
      const batch = unique.slice(start, end);
      const vectors = await this.runSentences(batch.map((e) => e.ids));
      batch.forEach((e, j) => {
        fresh.set(e.text, vectors[j]!);
        this.cache.set(e.text, vectors[j]!);
      });
    }
    for (const i of missing) out[i] = fresh.get(texts[i]!)!;
    return out;
  }

  /** Per-token hidden states before pooling (not cached: they are large). */
  async tokenStates(texts: readonly string[]): Promise<TokenStates[]> {
    assertTexts(texts);
    const results: TokenStates[] = [];
    for (let start = 0; start < texts.length; start += this.options.batchSize) {
      const encoded = texts.slice(start, start + this.options.batchSize).map((t) => this.encode(t));
      const { tokens, dims } = await this.run(
        encoded.map((e) => e.ids),
        'tokens',
      );
      const [, length, width] = dims as [number, number, number];
      encoded.forEach((e, b) => {
        results.push({
          ids: e.ids,
          tokens: e.ids.map((id) => this.pieces.get(id) ?? ''),
          states: e.ids.map((_, t) => tokens.slice((b * length + t) * width, (b * length + t + 1) * width)),
          truncated: e.truncated,
        });
      });
    }
    return results;
  }

  private async runSentences(batch: number[][]): Promise<Float32Array[]> {
    if (this.manifest.pooling === 'model') {
      const { sentence, dims } = await this.run(batch, 'sentence');
      const width = dims[1]!;
      return batch.map((_, b) => sentence.slice(b * width, (b + 1) * width));
    }
    const { tokens, dims } = await this.run(batch, 'tokens');
    const [, length, width] = dims as [number, number, number];
    return batch.map((ids, b) => {
      const v = new Float32Array(width);
      for (let t = 0; t < ids.length; t++) for (let k = 0; k < width; k++) v[k]! += tokens[(b * length + t) * width + k]!;
      const n = Math.max(1, ids.length);
      for (let k = 0; k < width; k++) v[k]! /= n;
      return this.manifest.normalize ? l2(v) : v;
    });
  }

  private async run(batch: number[][], want: 'sentence'): Promise<{ sentence: Float32Array; dims: readonly number[] }>;
  private async run(batch: number[][], want: 'tokens'): Promise<{ tokens: Float32Array; dims: readonly number[] }>;
  private async run(batch: number[][], want: 'sentence' | 'tokens'): Promise<{ sentence?: Float32Array; tokens?: Float32Array; dims: readonly number[] }> {
    const session = await this.getSession();
    const { ids, mask } = paddedIds(batch);
    const feeds: Record<string, ort.Tensor> = { input_ids: ids, attention_mask: mask };
    if (session.inputNames.includes('token_type_ids')) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(ids.size), ids.dims);
    const name = want === 'sentence' ? this.manifest.outputs.sentence : (this.manifest.outputs.tokens ?? session.outputNames[0]);
    if (!name) throw new Error(`encoder ${this.manifest.name} declares no ${want} output`);
    const result = await session.run(feeds, [name]);
    const tensor = result[name]!;
    const data = tensor.data as Float32Array;
    return want === 'sentence' ? { sentence: data, dims: tensor.dims } : { tokens: data, dims: tensor.dims };
  }
}

/** Within each run of adjacent commuting pieces (a + b = b + a: powers of one string), longest first. */
export function longestFirstTies(ids: number[], pieces: ReadonlyMap<number, string>): number[] {
  const out = [...ids];
  let start = 0;
  for (let i = 1; i <= out.length; i++) {
    const a = pieces.get(out[i - 1]!) ?? '';
    const b = i < out.length ? (pieces.get(out[i]!) ?? '') : '';
    if (i < out.length && a !== '' && b !== '' && a + b === b + a) continue;
    if (i - start > 1) {
      const run = out.slice(start, i).sort((x, y) => (pieces.get(y) ?? '').length - (pieces.get(x) ?? '').length);
      out.splice(start, run.length, ...run);
    }
    start = i;
  }
  return out;
}

/** id → vocabulary piece, from a tokenizer.json of any model type (Unigram lists, WordPiece/BPE maps). */
function piecesOf(json: unknown): Map<number, string> {
  const pieces = new Map<number, string>();
  const j = json as { model?: { vocab?: unknown }; added_tokens?: Array<{ id: number; content: string }> };
  const vocab = j.model?.vocab;
  if (Array.isArray(vocab))
    vocab.forEach((entry, id) => {
      pieces.set(id, String((entry as [string, number])[0]));
    });
  else if (vocab && typeof vocab === 'object') for (const [piece, id] of Object.entries(vocab)) pieces.set(Number(id), piece);
  for (const t of j.added_tokens ?? []) pieces.set(t.id, t.content);
  return pieces;
}

function l2(v: Float32Array): Float32Array {
  let s = 0;
  for (const x of v) s += x * x;
  const n = Math.sqrt(Math.max(s, 1e-12));
  for (let k = 0; k < v.length; k++) v[k]! /= n;
  return v;
}

function assertTexts(texts: readonly unknown[]): asserts texts is readonly string[] {
  if (!Array.isArray(texts)) throw new TypeError('texts must be an array of strings');
  texts.forEach((t, i) => {
    if (typeof t !== 'string') throw new TypeError(`texts[${i}] is ${t === null ? 'null' : typeof t}, not a string`);
  });
}
