import { readFileSync } from 'node:fs';
import t from 'tap';
import { GET_LTS, nodeTooOld } from '../src/node-version.js';

const engines = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines.node;

t.test("below package.json's engines, the start names the version and the one line that gets a good one", async (t) => {
  t.equal(engines, '>=22.13');
  const old = nodeTooOld('20.20.2', engines);
  t.match(old, /Node\.js 20\.20\.2 is too old: the service needs 22\.13 or later/);
  t.ok(old!.includes(GET_LTS), 'the one line that gets 24 LTS');
  t.ok(readFileSync(new URL('../README.md', import.meta.url), 'utf8').includes(GET_LTS), 'the README gives the same line');
  t.match(old, /npm ci/, 'and to install again: the native modules were built for the old one');
  t.ok(nodeTooOld('22.12.9', engines));
  t.equal(nodeTooOld('22.13.0', engines), null);
  t.equal(nodeTooOld('24.22.3', engines), null);
  t.equal(nodeTooOld(process.versions.node, engines), null, 'the Node the tests run on');
  t.throws(() => nodeTooOld('24.0.0', '^22'), /not ">=MAJOR\.MINOR"/);
});

t.test('the check is the first module main.ts loads, so it runs before anything an old Node could fail on', async (t) => {
  const main = readFileSync(new URL('../src/main.ts', import.meta.url), 'utf8');
  t.equal(/^import .*$/m.exec(main)?.[0], "import './node-version.js';");
});
