import { SentenceEncoder } from '/work/main/src/text/encoder.js';
import { loadVerifier } from '/work/main/src/verify/verifier.js';
import { fitContext, taskText } from '/work/main/src/verify/format.js';
const enc = await SentenceEncoder.fromDirectory('/work/main/models/use-lite', { cacheSize: 1, batchSize: 32 });
const v = await loadVerifier('/work/main/models/verifier', async () => enc);
const turns = Array.from({ length: 120 }, (_, i) => ({ role: (i % 2 ? 'student' : 'tutor') as 'tutor' | 'student', text: `Turn ${i}: I loop from 0 to len(values) - window and take values[i:i+window], then divide by ${i}.` }));
const cands = (r: number) => Array.from({ length: 20 }, (_, i) => `Look at your loop bounds: how many windows fit into a list of ${r * 1000 + i} values? (${i})`);
const med = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const T: Record<string, number[]> = { fit: [], ctxtask: [], cands: [], verify: [] };
for (let r = 0; r < 30; r++) {
  const task = { description: `def f_${r}(values): """moving average ${r}"""`, solution_steps: ['a', 'b'] };
  let t = performance.now();
  const ctx = fitContext(turns.map((x) => ({ ...x, text: x.text + r })), 600, (text) => !enc.encode(text).truncated);
  T.fit!.push(performance.now() - t);
  t = performance.now();
  await enc.embed([taskText(task) + 'x', ctx.text + 'x']);
  T.ctxtask!.push(performance.now() - t);
  t = performance.now();
  await enc.embed(cands(r + 100));
  T.cands!.push(performance.now() - t);
  t = performance.now();
  await v.verify({ task, context: turns.map((x) => ({ ...x, text: x.text + r + 'y' })), candidates: cands(r) });
  T.verify!.push(performance.now() - t);
}
console.log(Object.fromEntries(Object.entries(T).map(([k, xs]) => [k, med(xs).toFixed(1)])));
