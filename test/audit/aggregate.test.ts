import { DEFAULT_PLAN_LIMITS } from '../../src/plan/parse.js';
import { createReadStream, readFileSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import t from 'tap';
import { RecordEvaluator } from '../../src/audit/evaluate.js';
import { parseLine } from '../../src/audit/record.js';
import { auditTables, renderMarkdown, renderText } from '../../src/audit/render.js';
import { auditStream } from '../../src/audit/run.js';
import { DEFAULT_RESOLVED, resolvePalette } from '../../src/plan/palette.js';
import { DEFAULT_SCORING } from '../../src/scoring/score-groups.js';
import { validateOne } from '../../src/scoring/validate-one.js';

// small.jsonl (test/fixtures/audit/): 11 lines —
//  1 chain (accepted, intent learn, profile)   2 diamond (accepted, learn)     3 cycle (debug, profile)
//  4 cycle + ShellTool (debug)                  5 truncated text, `output` (debug)  6 schema-invalid, `plan` (debug)
//  7 bad JSON   8 blank   9 no completion   10 a JSON array   11 fenced chain text (no intent, profile)
const FIXTURE = new URL('../fixtures/audit/small.jsonl', import.meta.url);
const LIMITS = DEFAULT_PLAN_LIMITS;
const evaluator = (palette = DEFAULT_RESOLVED, strict = false) =>
  new RecordEvaluator(palette, LIMITS, { strict, lambda_hard: DEFAULT_SCORING.lambda_hard, reward_profile: DEFAULT_SCORING.reward_profile });
const audit = (ev = evaluator()) => auditStream(createReadStream(FIXTURE), { evaluator: ev });

t.test('line accounting and malformed lines by number', async (t) => {
  const s = await audit();
  t.same(s.lines, { total: 11, blank: 1, malformed: 3, scored: 7 });
  t.same(
    s.malformed_examples.map((m) => m.line),
    [7, 9, 10],
  );
  t.match(s.malformed_examples[0]!.reason, /^invalid JSON/);
});

t.test('rejections by reason and class (T3)', async (t) => {
  const s = await audit();
  t.equal(s.gate.accepted, 3);
  t.equal(s.gate.rejected, 4);
  t.equal(s.gate.rejected_share, 4 / 7);
  t.same(
    s.gate.by_reason.map((r) => [r.reason, r.class, r.count]),
    [
      ['cycle', 'cycle', 2],
      ['parse_error', 'schema', 1],
      ['schema_invalid', 'schema', 1],
      ['tool_not_in_palette', 'tool', 1],
    ],
  );
  t.same(
    s.gate.by_class.map((r) => [r.reason, r.count, r.share]),
    [
      ['cycle', 2, 2 / 7],
      ['schema', 2, 2 / 7],
      ['tool', 1, 1 / 7],
    ],
  );
});

t.test('topology of accepted plans (T4): chain, diamond, chain', async (t) => {
  const { plans, metrics } = (await audit()).topology;
  t.equal(plans, 3);
  t.same(metrics.steps, { n: 3, mean: 4, min: 4, max: 4, p10: 4, median: 4, p90: 4, exact: true });
  t.equal(metrics.edges.mean, 10 / 3);
  t.equal(metrics.edges.median, 3);
  t.ok(Math.abs(metrics.edges.p90! - 3.8) < 1e-12, 'interpolated between 3 and 4');
  t.equal(metrics.edge_density.max, 4 / 6);
  t.same([metrics.max_fan_in.max, metrics.max_fan_out.max, metrics.layer_width.max], [2, 2, 2]);
  t.equal(metrics.critical_path_ratio.mean, (1 + 0.75 + 1) / 3);
  t.equal(metrics.critical_path_ratio.min, 0.75);
  t.equal(metrics.inter_agent_edge_ratio.mean, (1 / 3 + 2 / 4 + 1 / 3) / 3);
});

t.test('reward means equal the means of validateOne over the same records', async (t) => {
  const s = await audit();
  const results = readFileSync(FIXTURE, 'utf8')
    .split('\n')
    .map((text, i) => parseLine(text, i + 1))
    .flatMap((o) => (o.kind === 'record' ? [o.record] : []))
    .map((r) => ({
      intent: r.intent,
      hasProfile: r.profile !== undefined,
      v: validateOne({ plan: r.completion, profile: r.profile }, LIMITS, DEFAULT_SCORING),
    }));
  t.equal(results.length, 7);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const close = (a: number | null, b: number, what: string) => t.ok(a !== null && Math.abs(a - b) < 1e-12, `${what}: ${a} vs ${b}`);
  close(s.rewards.struct, mean(results.map((r) => r.v.raw.struct)), 'struct');
  close(s.rewards.ped, mean(results.map((r) => r.v.raw.ped)), 'ped');
  close(s.rewards.score, mean(results.map((r) => r.v.score)), 'score');
  close(s.rewards.pers, mean(results.filter((r) => r.hasProfile).map((r) => r.v.raw.pers)), 'pers over profiled records');
  t.equal(s.rewards.with_profile, 3);
  // By hand: struct = (1 + 1 + 2/3 + 5/8 + 0 + 0 + 1) / 7; pers = (1 [python] + 1/2 [python, not java] + 1/2 [python, not rust]) / 3.
  close(s.rewards.struct, (3 + 2 / 3 + 5 / 8) / 7, 'struct by hand');
  close(s.rewards.pers, 2 / 3, 'pers by hand');
});

t.test('per-intent table (T5), records without intent under (none)', async (t) => {
  const s = await audit();
  t.same(
    s.intents!.map((r) => [r.intent, r.n, r.accepted, r.acceptance_rate, r.with_profile]),
    [
      ['debug', 4, 0, 0, 1],
      ['learn', 2, 2, 1, 1],
      ['(none)', 1, 1, 1, 1],
    ],
  );
  const learn = s.intents!.find((r) => r.intent === 'learn')!;
  t.same([learn.struct, learn.pers, learn.ped, learn.score], [1, 1, 1, (1 + 2 / 3) / 2]);
  const debug = s.intents!.find((r) => r.intent === 'debug')!;
  t.equal(debug.score, 0, 'gated plans score 0');
  t.equal(debug.pers, 0.5);
});

t.test('no intent anywhere: no per-intent table', async (t) => {
  const s = await auditStream(Readable.from(['{"completion": "x"}\n', '{"completion": "y"}\n']), { evaluator: evaluator() });
  t.equal(s.intents, null);
  t.equal(s.rewards.pers, null, 'no profile, no R_pers');
  t.notMatch(renderText(auditTables(s)), /Per intent/);
});

t.test('a palette with ShellTool accepts its call; --strict gates on warnings too', async (t) => {
  const withShell = await audit(evaluator(resolvePalette(['CodeDocsSearchTool', 'CodeInterpreterTool', 'FileWriterTool', 'ShellTool'])));
  t.notOk(withShell.gate.by_reason.some((r) => r.reason === 'tool_not_in_palette'));
  t.ok(
    withShell.gate.by_reason.some((r) => r.reason === 'tool_not_in_agent_tools'),
    'ShellTool is still not in the agent tools',
  );
  const strict = await audit(evaluator(DEFAULT_RESOLVED, true));
  t.ok(
    strict.gate.by_reason.some((r) => r.class === null),
    'a warning code gates under strict',
  );
  t.ok(strict.gate.rejected >= 4);
});

t.test('per-record lines go to the records writer', async (t) => {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on('data', (c) => chunks.push(String(c)));
  await auditStream(createReadStream(FIXTURE), { evaluator: evaluator(), records: out });
  const rows = chunks
    .join('')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.equal(rows.length, 10, 'every line but the blank one');
  t.same(rows[3], { ...rows[3], line: 4, id: 'cycle+tool', accepted: false, reasons: ['tool_not_in_palette', 'cycle'] });
  t.same(rows[6], { line: 7, malformed: rows[6].malformed });
  t.equal(rows[1].raw.pers, null, 'no profile: R_pers not computed');
});

t.test('rendered tables: aligned text and markdown from the same rows', async (t) => {
  const tables = auditTables(await audit());
  const text = renderText(tables);
  t.match(text, /Static gate: rejections by reason \(T3\)/);
  t.match(text, /Topology of accepted plans \(T4\), n = 3/);
  t.match(text, /Per intent \(T5\)/);
  t.match(text, /line 7 \(invalid JSON/);
  // Every row of a table is as wide as its rule line, except the trailing note, titles and ragged last cells.
  const block = text
    .split('\n\n')
    .find((b) => b.startsWith('Static gate'))!
    .split('\n');
  const ruleWidth = block[2]!.length;
  for (const row of block.slice(3, -1)) t.equal(row.length, ruleWidth, row);
  const md = renderMarkdown(tables, 'Plan audit');
  t.match(md, /^# Plan audit/);
  t.match(md, /\| reason \| class \| plans \| share \|\n\| --- \| --- \| ---: \| ---: \|/);
  t.match(md, /\| learn \| 2 \| 100\.0% \|/);
});
