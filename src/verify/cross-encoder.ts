import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import * as ort from 'onnxruntime-node';
import { sessionOptions } from '../text/onnx-session.js';
import { fill, traverFields } from './format.js';
import type { CrossEncoderManifest } from './manifest.js';
import { sigmoid, type TurnVerifier, type Verification, type VerifyInput } from './model.js';

// Past this many characters per token of the budget, text is cut before tokenizing (from the side the
// token truncation would cut anyway): no text that long fits.
const CHARS_PER_TOKEN_BOUND = 32;

/**
 * A bring-your-own cross-encoder: (task, knowledge, context) and the response encoded as a token pair,
 * one forward pass over all candidates. The first text is tokenized once per request.
 */
export class CrossEncoderVerifier implements TurnVerifier {
  readonly info;
  private readonly specials: number;

  private constructor(
    private readonly manifest: CrossEncoderManifest,
    private readonly tokenizer: Tokenizer,
    private readonly session: ort.InferenceSession,
    private readonly output: string,
  ) {
    this.info = { name: manifest.name, version: manifest.version, kind: manifest.kind };
    this.specials = this.pair([], []).ids.length;
  }

  static async load(dir: string, manifest: CrossEncoderManifest, threads = 0): Promise<CrossEncoderVerifier> {
    const tokenizerJson: unknown = JSON.parse(await readFile(resolve(dir, manifest.tokenizer), 'utf8'));
    const config = await readFile(join(dir, 'tokenizer_config.json'), 'utf8')
      .then((t) => JSON.parse(t) as object)
      .catch(() => ({}));
    const tokenizer = new Tokenizer(tokenizerJson as object, config);
    const session = await ort.InferenceSession.create(resolve(dir, manifest.model), sessionOptions(threads));
    const missing = ['input_ids', 'attention_mask'].filter((n) => !session.inputNames.includes(n));
    if (missing.length) throw new Error(`the model has no input ${missing.join(', ')}`);
    const output = manifest.output ?? session.outputNames[0]!;
    if (!session.outputNames.includes(output)) throw new Error(`the model has no output "${output}" (it has ${session.outputNames.join(', ')})`);
    return new CrossEncoderVerifier(manifest, tokenizer, session, output);
  }

  async verify({ task, context, candidates }: VerifyInput): Promise<Verification> {
    const { max_length: max, template } = this.manifest;
    const budget = max - this.specials;
    const fields = traverFields(task, context);
    const first = this.tokens(fill(template.first, fields), budget, 'left');
    const rows = candidates.map((response) => {
      const second = this.tokens(fill(template.second, { ...fields, response }), budget, 'right');
      // The response keeps all its tokens while the first text keeps at least half the budget (or all of
      // itself, if shorter); past that both are cut.
      const keepSecond = Math.min(second.tokens.length, budget - Math.min(first.tokens.length, Math.floor(budget / 2)));
      const keepFirst = Math.min(first.tokens.length, budget - keepSecond);
      return {
        ...this.pair(first.tokens.slice(first.tokens.length - keepFirst), second.tokens.slice(0, keepSecond)),
        firstCut: first.cut || keepFirst < first.tokens.length,
        secondCut: second.cut || keepSecond < second.tokens.length,
      };
    });
    const logits = await this.run(rows);
    const contextCut = rows.some((r) => r.firstCut);
    return {
      candidates: logits.map((logit) => ({ score: this.manifest.sigmoid ? sigmoid(logit) : logit, logit })),
      // Left truncation of the first text reaches the task before the context in Traver's order.
      truncated: { task: contextCut, context: contextCut, candidates: rows.flatMap((r, i) => (r.secondCut ? [i] : [])) },
    };
  }

  private tokens(text: string, budget: number, side: 'left' | 'right'): { tokens: string[]; cut: boolean } {
    const limit = budget * CHARS_PER_TOKEN_BOUND;
    const pre = text.length > limit;
    const input = pre ? (side === 'left' ? text.slice(text.length - limit) : text.slice(0, limit)) : text;
    return { tokens: this.tokenizer.tokenize(input, { add_special_tokens: false }), cut: pre };
  }

  private pair(a: string[], b: string[]): { ids: number[]; types: number[] } {
    const processed = this.tokenizer.post_processor?.(a, b, true) ?? { tokens: [...a, ...b] };
    const ids = processed.tokens.map((t: string) => {
      const id = this.tokenizer.token_to_id(t);
      if (id === undefined) throw new Error(`the tokenizer produced "${t}", which is not in its vocabulary`);
      return id;
    });
    return { ids, types: processed.token_type_ids ?? [...a.map(() => 0), ...b.map(() => 1)] };
  }

  private async run(rows: { ids: number[]; types: number[] }[]): Promise<number[]> {
    const n = rows.length;
    const length = Math.max(...rows.map((r) => r.ids.length));
    const ids = new BigInt64Array(n * length);
    const mask = new BigInt64Array(n * length);
    const types = new BigInt64Array(n * length);
    rows.forEach((r, b) => {
      r.ids.forEach((id, t) => {
        ids[b * length + t] = BigInt(id);
        mask[b * length + t] = 1n;
        types[b * length + t] = BigInt(r.types[t] ?? 0);
      });
    });
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', ids, [n, length]),
      attention_mask: new ort.Tensor('int64', mask, [n, length]),
    };
    if (this.session.inputNames.includes('token_type_ids')) feeds.token_type_ids = new ort.Tensor('int64', types, [n, length]);
    const out = (await this.session.run(feeds, [this.output]))[this.output]!;
    if (out.data.length !== n) throw new Error(`output "${this.output}" has shape [${out.dims.join(', ')}], not one logit per row`);
    return Array.from(out.data as Float32Array, Number);
  }
}
