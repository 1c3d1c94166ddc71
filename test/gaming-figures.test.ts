// docs/rewards.md §10.5 shows the latest figures of `npm run bench:gaming` as it wrote them.
import { readFile } from 'node:fs/promises';
import t from 'tap';
import { embedFigures, type GamingFigures } from '../bench/gaming-figures.js';

t.test('the gaming figures in docs/rewards.md are bench/results/gaming.json rendered', async (t) => {
  const figures = JSON.parse(await readFile(new URL('../bench/results/gaming.json', import.meta.url), 'utf8')) as GamingFigures;
  const doc = await readFile(new URL('../docs/rewards.md', import.meta.url), 'utf8');
  t.equal(doc, embedFigures(doc, figures));
  t.ok(
    figures.redteam.margin.guarded.every((m) => m <= 0),
    'the guarded margins the docs state',
  );
});
