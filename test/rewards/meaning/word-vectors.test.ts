// The word table (models/word-vectors): what a word is and what it means, as the meaning reading looks it up.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { wordTable } from '../../../src/rewards/meaning/word-vectors.js';

const t0 = wordTable();
const manifest = JSON.parse(readFileSync(new URL('../../../models/word-vectors/manifest.json', import.meta.url), 'utf8')) as {
  version: string;
  dims: number;
  words: number;
  held_out_cosine: { mapped_bag_vs_use_lite: number; plain_bag_vs_use_lite: number };
};
const vector = (w: string) => {
  const v = new Float32Array(t0.dims);
  t0.addRow(v, t0.row(w), 1);
  return v;
};
const cos = (a: string, b: string) => {
  const [x, y] = [vector(a), vector(b)];
  let s = 0;
  let nx = 0;
  let ny = 0;
  for (let k = 0; k < x.length; k++) {
    s += x[k]! * y[k]!;
    nx += x[k]! ** 2;
    ny += y[k]! ** 2;
  }
  return s / Math.sqrt(nx * ny);
};

t.test('the manifest describes the table, and the map beats the plain mean on held-out sentences', async (t) => {
  t.equal(t0.version, manifest.version);
  t.equal(t0.dims, manifest.dims);
  t.ok(manifest.words > 70_000, `${manifest.words} words`);
  t.ok(manifest.held_out_cosine.mapped_bag_vs_use_lite > manifest.held_out_cosine.plain_bag_vs_use_lite);
});

t.test('a word is found as written, through irregular forms and through the detachment rules', async (t) => {
  for (const w of ['tensor', 'recursion', 'kotlin', 'json']) t.ok(t0.row(w) >= 0, `${w} is in the table`);
  t.equal(t0.row('children'), t0.row('child'), 'children: an irregular form of child');
  t.equal(t0.row('went'), t0.row('go'), 'went: an irregular form of go');
  t.equal(t0.row('melts'), t0.row('melt'), 'melts: -s detached');
  t.equal(t0.row('dictionaries'), t0.row('dictionary'), 'dictionaries: -ies → -y');
  t.equal(t0.row('parsed'), t0.row('parse'), 'parsed: -ed → -e');
  t.equal(t0.row('tensors'), t0.row('tensor'), 'tensors: -s');
  for (const w of ['frobnitz', 'quux', 'wibble', 'bauntwerkquurk']) t.equal(t0.row(w), -1, `${w} is no word`);
});

t.test('weights are inverse document frequencies in (0, 1]: a word every conversation has weighs less than a rare one', async (t) => {
  for (const w of ['the', 'answer', 'tensor', 'coroutine']) {
    const r = t0.row(w);
    if (r < 0) continue;
    t.ok(t0.weight(r) > 0 && t0.weight(r) <= 1, `${w}: ${t0.weight(r)}`);
  }
  t.ok(t0.weight(t0.row('answer')) < t0.weight(t0.row('tensor')), 'answer weighs less than tensor');
});

t.test('rows carry meaning: related words are nearer than unrelated ones', async (t) => {
  const pairs: [string, string, string][] = [
    ['recursion', 'recursive', 'banana'],
    ['apple', 'pear', 'compiler'],
    ['buy', 'purchase', 'river'],
    ['function', 'method', 'elephant'],
  ];
  for (const [a, near, far] of pairs) t.ok(cos(a, near) > cos(a, far), `${a}: ${near} ${cos(a, near).toFixed(2)} > ${far} ${cos(a, far).toFixed(2)}`);
});
