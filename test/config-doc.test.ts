import { readFile } from 'node:fs/promises';
import t from 'tap';
import { renderConfigDoc } from '../scripts/config-doc.js';
import { ConfigSchema } from '../src/config.js';

t.test('every setting of ConfigSchema has a description', async (t) => {
  const undescribed = Object.entries(ConfigSchema.shape)
    .filter(([, schema]) => (schema.description ?? '').trim() === '')
    .map(([key]) => key);
  t.same(undescribed, [], 'add .describe(…) in src/config.ts');
});

t.test('the committed docs/configuration.md is what src/config.ts generates', async (t) => {
  const committed = await readFile(new URL('../docs/configuration.md', import.meta.url), 'utf8');
  const generated = renderConfigDoc();
  t.equal(generated, committed, 'docs/configuration.md is what src/config.ts renders; if not, run `npm run docs:config`');
  for (const key of Object.keys(ConfigSchema.shape)) t.match(generated, `| \`${key}\` |`, `${key} has a row`);
});
