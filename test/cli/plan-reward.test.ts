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
    // Without a known command, the list of commands; with one, its usage alone.
    if (args[0] === 'audit') t.match(r.stderr, /Usage: plan-reward audit/);
    else t.match(r.stderr, /Commands: audit, redteam, keys, backup, restore/);
    t.notMatch(r.stderr, /Usage: plan-reward redteam/);
  }
});

t.test('--help exits 0 with the usage on stdout', async (t) => {
  const r = await cli(['--help']);
  t.equal(r.code, 0);
  t.match(r.stdout, /Usage: plan-reward audit <plans\.jsonl>/);
});

t.test('a JSON array and a pretty-printed JSON object are read as records; anything else is refused', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'plan-audit-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const lines = (await readFile(FIXTURE, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  const valid = lines.flatMap((l) => {
    try {
      const v = JSON.parse(l) as unknown;
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? [v] : [];
    } catch {
      return [];
    }
  });
  const jsonl = await cli(['audit', FIXTURE, '--quiet', '--out', path.join(dir, 'jsonl')]);
  t.equal(jsonl.code, 0, jsonl.stderr);
  const fromJsonl = JSON.parse(await readFile(path.join(dir, 'jsonl', 'summary.json'), 'utf8'));

  const array = path.join(dir, 'plans.json');
  await writeFile(array, JSON.stringify(valid, null, 2));
  const r = await cli(['audit', array, '--quiet', '--out', path.join(dir, 'array')]);
  t.equal(r.code, 0, r.stderr);
  const fromArray = JSON.parse(await readFile(path.join(dir, 'array', 'summary.json'), 'utf8'));
  t.equal(fromArray.input.format, 'array');
  t.same(
    fromArray.lines,
    { total: valid.length, blank: 0, malformed: fromJsonl.lines.malformed - 2, scored: fromJsonl.lines.scored },
    'the same records scored; only the two non-JSON lines are gone',
  );
  t.same(fromArray.gate, fromJsonl.gate, 'with the same gate tables');

  const one = path.join(dir, 'one.json');
  await writeFile(one, JSON.stringify(valid[0], null, 2));
  const single = await cli(['audit', one, '--quiet', '--out', path.join(dir, 'one')]);
  t.equal(single.code, 0, single.stderr);
  const fromOne = JSON.parse(await readFile(path.join(dir, 'one', 'summary.json'), 'utf8'));
  t.same([fromOne.input.format, fromOne.lines], ['document', { total: 1, blank: 0, malformed: 0, scored: 1 }]);

  for (const [name, text, message] of [
    ['notes.txt', 'id,completion\n1,plan\n', /is not JSONL, a JSON array or a JSON object: it starts with "id,completion/],
    ['broken.json', '[\n  {"completion": "x"},\n', /broken\.json is not valid JSON/],
    ['broken-object.json', '{\n  "completion": \n', /broken-object\.json is not valid JSON/],
  ] as const) {
    const file = path.join(dir, name);
    await writeFile(file, text);
    const bad = await cli(['audit', file, '--quiet', '--out', path.join(dir, `out-${name}`)]);
    t.equal(bad.code, 2, name);
    t.match(bad.stderr, message, name);
  }
});

t.test('--strict: rejections only strict mode makes are their own class, so the class rows cover every rejected plan', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'plan-audit-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // The fixture's records, and one more whose only fault is a warning: a dependency on a step that does not exist.
  const lines = (await readFile(FIXTURE, 'utf8')).split('\n');
  const chain = JSON.parse(lines[0]!) as { id: string; completion: { steps: { depends_on: string[] }[] } };
  chain.id = 'dangling';
  chain.completion.steps[0]!.depends_on = ['no-such-step'];
  const input = path.join(dir, 'plans.jsonl');
  await writeFile(input, [...lines, JSON.stringify(chain)].join('\n'));
  const r = await cli(['audit', input, '--quiet', '--strict', '--out', dir]);
  t.equal(r.code, 0, r.stderr);
  const { gate } = JSON.parse(await readFile(path.join(dir, 'summary.json'), 'utf8'));
  const strictOnly = gate.by_class.find((c: { reason: string }) => c.reason === 'strict');
  t.ok(strictOnly?.count > 0, JSON.stringify(gate.by_class));
  const classRows = gate.by_class.reduce((n: number, c: { count: number }) => n + c.count, 0);
  t.ok(classRows >= gate.rejected, `class rows ${classRows} cover the ${gate.rejected} rejected plans`);
  t.match(r.stdout, /class: strict/);
});
