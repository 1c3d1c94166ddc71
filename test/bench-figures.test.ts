// Every figure the docs quote is a bench's result file rendered (bench/figures.ts): a block between
// `<!-- NAME-figures:start -->` and `<!-- NAME-figures:end -->` in README.md or docs/*.md must be what
// `npm run figures` writes from the committed bench/results/<name>.json.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { BLOCKS, blocksIn, DOCS, embedFigures } from '../bench/figures.js';
import { type BenchResult, readResult } from '../bench/results.js';

const root = new URL('../', import.meta.url).pathname;
const docs = DOCS.map((url) => ({ name: url.pathname.slice(root.length), text: readFileSync(url, 'utf8') }));

t.test('each figures block in the docs is its result file rendered', async (t) => {
  for (const doc of docs) {
    if (blocksIn(doc.text).length > 0) t.equal(doc.text, embedFigures(doc.text), `${doc.name}: run \`npm run figures\``);
  }
});

t.test('every renderer and every result file is used by a doc', async (t) => {
  const embedded = new Set(docs.flatMap((d) => blocksIn(d.text)));
  for (const name of Object.keys(BLOCKS)) t.ok(embedded.has(name), `a doc embeds <!-- ${name}-figures -->`);
  const results = readdirSync(new URL('../bench/results/', import.meta.url)).filter((n) => n.endsWith('.json'));
  const rendered = new Set([...embedded].map((n) => BLOCKS[n]!.result));
  for (const file of results) t.ok(rendered.has(file.replace(/\.json$/, '')), `bench/results/${file} is rendered in a doc`);
});

t.test('result files say when and where they were measured', async (t) => {
  for (const name of new Set(Object.values(BLOCKS).map((b) => b.result))) {
    const r: BenchResult = readResult(name);
    t.equal(r.bench, name, `${name}: its name`);
    t.ok(Number.isFinite(Date.parse(r.date)), `${name}: its date`);
    t.ok(r.machine && r.machine.cpus > 0 && r.machine.loadavg_start.length === 3, `${name}: its machine`);
  }
});

t.test('blocks pair their markers and name a renderer', async (t) => {
  t.throws(() => blocksIn('<!-- a-figures:start -->'), /no end marker/);
  t.throws(() => blocksIn('<!-- a-figures:start --><!-- b-figures:end -->'), /do not pair/);
  t.throws(() => embedFigures('<!-- nothing-figures:start -->\n<!-- nothing-figures:end -->'), /no renderer/);
  const guarded = readResult('guarded-eval');
  const doc =
    'x\n<!-- guarded-eval-figures:start -->\nold\n<!-- guarded-eval-figures:end -->\ny <!-- guarded-eval-figures:start --><!-- guarded-eval-figures:end -->\n';
  const out = embedFigures(doc, () => guarded);
  t.equal(out.split(BLOCKS['guarded-eval']!.render(guarded).trimEnd()).length, 3, 'both blocks rendered');
  t.equal(
    embedFigures(out, () => guarded),
    out,
    'rendering twice changes nothing',
  );
});
