// Step 1 of `npm run train:word-vectors`: every single-word lemma of WordNet 3.0, every programming word the
// gaming reading knows (topic.ts) and every one-word alias of the lexicon, each embedded alone by USE-lite
// (models/use-lite); and sentences of tutoring dialogues and programming prose with USE-lite's embedding of
// each, from which training/word_vectors.py learns how a bag of words' vectors maps to the sentence's
// embedding. Written as float32 rows and word lists for that script.
//
// Why a table and not the encoder per step: a 64×8 batch of fresh plans holds some 3,000 step texts, which
// USE-lite embeds at ~300 texts/s a core (bench/results/encoder.json), seconds per request; words repeat
// where sentences do not, so a step's meaning is read from its words' vectors (src/rewards/meaning/).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readWordNetFiles } from '../src/metrics/text/wordnet.js';
import { LEXICON } from '../src/rewards/personalization/lexicon.js';
import { PROGRAMMING_WORDS } from '../src/rewards/gaming/topic.js';
import { isStopword } from '../src/rewards/gaming/text.js';
import { isNumber, wordsOf } from '../src/rewards/meaning/words.js';
import { SentenceEncoder } from '../src/text/encoder.js';
import { distillationDocuments } from './word-sentences.js';

const ROOT = new URL('..', import.meta.url).pathname;
const OUT = join(ROOT, 'training/.cache/word-vectors');
const WORD = /^[a-z][a-z0-9+#]*$/;

const files = readWordNetFiles();
const words = new Set<string>();
for (const pos of ['noun', 'verb', 'adj', 'adv']) {
  for (const line of files[`index.${pos}`]!.toString('utf8').split('\n')) {
    if (line.startsWith(' ') || line.length === 0) continue;
    const lemma = line.slice(0, line.indexOf(' '));
    if (WORD.test(lemma)) words.add(lemma);
  }
}
const wordnetCount = words.size;
for (const w of PROGRAMMING_WORDS) words.add(w);
for (const alias of LEXICON.flatMap((e) => e.aliases)) {
  const a = alias.toLowerCase();
  if (WORD.test(a) && a.length > 1) words.add(a);
}
// Irregular forms (WordNet's *.exc): "went go", "children child"; the reader looks a form up through them.
const inflections: string[] = [];
for (const pos of ['noun', 'verb', 'adj', 'adv']) {
  for (const line of files[`${pos}.exc`]!.toString('utf8').split('\n')) {
    const [form, lemma] = line.split(' ');
    if (form && lemma && WORD.test(form) && WORD.test(lemma) && words.has(lemma)) inflections.push(`${form} ${lemma}`);
  }
}
const vocab = [...words].sort();

const encoder = await SentenceEncoder.fromDirectory(join(ROOT, 'models/use-lite'), { cacheSize: 1, batchSize: 128 });
const rows = new Float32Array(vocab.length * 512);
const started = performance.now();
for (let i = 0; i < vocab.length; i += 4096) {
  const vectors = await encoder.embed(vocab.slice(i, i + 4096));
  for (const [j, v] of vectors.entries()) rows.set(v, (i + j) * 512);
  process.stderr.write(`\r${Math.min(vocab.length, i + 4096)} / ${vocab.length}`);
}
process.stderr.write(`\n${vocab.length} words embedded in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
// The sentences' content words as the reader takes them (src/rewards/meaning/words.ts), and their embeddings.
const documents = distillationDocuments(ROOT, process.env.SHARED ?? join(ROOT, '../shared'));
const sentences = [...new Set(documents.flat())].sort();
const targets = new Float32Array(sentences.length * 512);
for (let i = 0; i < sentences.length; i += 2048) {
  for (const [j, v] of (await encoder.embed(sentences.slice(i, i + 2048))).entries()) targets.set(v, (i + j) * 512);
}
const bags = sentences.map((s) =>
  wordsOf(s)
    .filter((w) => !w.cue && !isStopword(w.word) && !isNumber(w.word))
    .map((w) => w.word),
);
process.stderr.write(`${sentences.length} sentences embedded\n`);
mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, 'sentences.f32'), Buffer.from(targets.buffer));
writeFileSync(join(OUT, 'sentence-words.json'), JSON.stringify(bags));
// Words the table has no row for that two documents or more use ("since", "whether", "numpy"): real words,
// never called invented (src/rewards/meaning/read.ts §11c).
const documentsOf = new Map<string, number>();
for (const doc of documents) for (const w of new Set(doc.flatMap((s) => wordsOf(s).map((x) => x.word)))) documentsOf.set(w, (documentsOf.get(w) ?? 0) + 1);
const vocabulary = new Set(vocab);
writeFileSync(
  join(OUT, 'known.txt'),
  `${[...documentsOf]
    .filter(([w, n]) => n >= 2 && !vocabulary.has(w) && /^[a-z]/.test(w))
    .map(([w]) => w)
    .sort()
    .join('\n')}\n`,
);
const wordsOfDocument = (doc: readonly string[]) => [
  ...new Set(
    doc.flatMap((s) =>
      wordsOf(s)
        .filter((w) => !w.cue && !isStopword(w.word) && !isNumber(w.word))
        .map((w) => w.word),
    ),
  ),
];
writeFileSync(join(OUT, 'document-words.json'), JSON.stringify(documents.map(wordsOfDocument)));
writeFileSync(join(OUT, 'embeddings.f32'), Buffer.from(rows.buffer));
writeFileSync(join(OUT, 'vocab.txt'), `${vocab.join('\n')}\n`);
writeFileSync(join(OUT, 'inflections.txt'), `${[...new Set(inflections)].sort().join('\n')}\n`);
writeFileSync(join(OUT, 'counts.json'), JSON.stringify({ wordnet_lemmas: wordnetCount, words: vocab.length, inflections: inflections.length }));
