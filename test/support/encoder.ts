import { fileURLToPath } from 'node:url';
import { SentenceEncoder } from '../../src/text/encoder.js';

const USE_LITE_DIR = fileURLToPath(new URL('../../models/use-lite', import.meta.url));

export function useLite(cacheSize = 1000) {
  return SentenceEncoder.fromDirectory(USE_LITE_DIR, { cacheSize, batchSize: 32 });
}

/** Records the texts of every `embed` call the encoder gets from now on, one array per call. */
export function recordEmbeds(encoder: SentenceEncoder): string[][] {
  const calls: string[][] = [];
  const embed = encoder.embed.bind(encoder);
  encoder.embed = async (texts, ...rest) => {
    calls.push([...texts]);
    return embed(texts, ...rest);
  };
  return calls;
}

/** Records the text of every `encode` (tokenizer) call the encoder gets from now on. */
export function recordEncodes(encoder: SentenceEncoder): string[] {
  const texts: string[] = [];
  const encode = encoder.encode.bind(encoder);
  encoder.encode = (text) => {
    texts.push(text);
    return encode(text);
  };
  return texts;
}
