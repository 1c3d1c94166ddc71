import { fileURLToPath } from 'node:url';
import { SentenceEncoder } from '../../src/text/encoder.js';

const USE_LITE_DIR = fileURLToPath(new URL('../../models/use-lite', import.meta.url));

export function useLite(cacheSize = 1000) {
  return SentenceEncoder.fromDirectory(USE_LITE_DIR, { cacheSize, batchSize: 32 });
}
