import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { cli } from './support.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/audit/small.jsonl', import.meta.url));

t.test('audit: exit 0, tables on stdout, summary.json / summary.md / records.jsonl in --out', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'plan-audit-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const out = path.join(dir, 'out');
  const r = await cli(['audit', FIXTURE, '--out', out]);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /Static gate: rejections by reason \(T3\)/);
  t.match(r.stdout, /Topology of accepted plans \(T4\), n = 3/);
  t.match(r.stdout, /Per intent \(T5\)/);
  t.match(r.stderr, /^done: 11 lines/m, 'a plain progress line when stderr is not a terminal');
  const summary = JSON.parse(await readFile(path.join(out, 'summary.json'), 'utf8'));
  t.same(summary.lines, { total: 11, blank: 1, malformed: 3, scored: 7 });
  t.equal(summary.gate.accepted, 3);
  t.same(summary.options.palette.source, 'default');
  t.ok(summary.run.plans_per_second > 0);
  t.match(await readFile(path.join(out, 'summary.md'), 'utf8'), /^# Plan audit: small\.jsonl/);
  t.equal((await readFile(path.join(out, 'records.jsonl'), 'utf8')).trim().split('\n').length, 10);
});

t.test('default --out is <input>.audit/; --quiet silences stderr; --palette replaces the palette', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'plan-audit-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const input = path.join(dir, 'plans.jsonl');
  await writeFile(input, await readFile(FIXTURE));
  const palette = path.join(dir, 'palette.json');
  await writeFile(palette, JSON.stringify({ palette: ['CodeDocsSearchTool', 'CodeInterpreterTool', 'FileWriterTool', { name: 'ShellTool' }] }));
  const r = await cli(['audit', input, '--quiet', '--palette', palette]);
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stderr, '');
  const summary = JSON.parse(await readFile(path.join(dir, 'plans.jsonl.audit', 'summary.json'), 'utf8'));
  t.same(summary.options.palette, { source: 'request', tools: ['CodeDocsSearchTool', 'CodeInterpreterTool', 'FileWriterTool', 'ShellTool'] });
  t.notOk(summary.gate.by_reason.some((x: { reason: string }) => x.reason === 'tool_not_in_palette'));
});

t.test('usage errors exit 2 with a clear message', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'plan-audit-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const badPalette = path.join(dir, 'bad.json');
  await writeFile(badPalette, '[]');
  const cases: Array<[string[], RegExp]> = [
    [[], /missing command/],
    [['score'], /unknown command "score"/],
    [['audit'], /missing input file/],
    [['audit', path.join(dir, 'nope.jsonl')], /input file not found: .*nope\.jsonl/],
    [['audit', dir], /input is not a file/],
    [['audit', FIXTURE, '--frobnicate'], /Unknown option '--frobnicate'/],
    [['audit', FIXTURE, FIXTURE], /expected one input file/],
    [['audit', FIXTURE, '--palette', path.join(dir, 'none.json')], /palette file not found/],
    [['audit', FIXTURE, '--palette', badPalette], /invalid palette in .*bad\.json/],
  ];
  for (const [args, message] of cases) {
    const r = await cli(args);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, message, args.join(' '));
    t.match(r.stderr, /Usage: plan-reward audit/);
  }
});

t.test('--help exits 0 with the usage on stdout', async (t) => {
  const r = await cli(['--help']);
  t.equal(r.code, 0);
  t.match(r.stdout, /Usage: plan-reward audit <plans\.jsonl>/);
});
