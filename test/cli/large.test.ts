import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { BENCH_PROFILES, realisticPlan } from '../../bench/realistic-plans.js';
import { mulberry32 } from '../../src/common/rng.js';
import { loadScaled } from '../support/load.js';
import { cli } from './support.js';

// 100,000 realistic plans (bench/realistic-plans.ts), a few hundred MB of JSONL, audited by a child whose
// V8 old space is capped at 64 MB: it can only finish if it does not hold the plans.
const N = 100_000;
const HEAP_MB = 64;
const INTENTS = ['learn', 'debug', 'practice', 'review'];

// The suite's longest file, and the one a loaded machine stretches most (beside other jobs it outran tap's
// per-file timeout): that timeout is raised for it here, scaled by the load as it starts.
t.setTimeout(loadScaled(600_000));

t.test(`audits ${N.toLocaleString('en-US')} plans in bounded memory`, async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'plan-audit-large-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const input = path.join(dir, 'plans.jsonl');

  // 1,999 realistic plans, cycled (the count is odd, so each meets every form below): the lines are
  // concatenated from pre-serialized parts, which keeps writing the input to a few seconds.
  const rand = mulberry32(11);
  const variants = Array.from({ length: 1_999 }, () => {
    const r = rand();
    const defects = { cycle: r < 0.1, badTool: r >= 0.1 && r < 0.2, dangling: r >= 0.2 && r < 0.25 };
    const json = JSON.stringify(realisticPlan(rand, defects));
    return {
      defects,
      object: json,
      fenced: JSON.stringify(`Here is the plan.\n\`\`\`json\n${json}\n\`\`\``),
      truncated: JSON.stringify(json.slice(0, json.length >> 1)),
    };
  });
  const profiles = BENCH_PROFILES.map((p) => JSON.stringify(p));
  const expected = { cycle: 0, tool: 0, parse: 0, accepted: 0, malformed: 0, perIntent: new Map<string, number>() };
  const out = createWriteStream(input);
  for (let i = 0; i < N; i++) {
    const v = variants[i % variants.length]!;
    const truncated = i % 40 === 7;
    // Half plan objects, half model text in a fence, 1 in 40 cut in half (an unparseable completion).
    const completion = truncated ? v.truncated : i % 2 ? v.object : v.fenced;
    if (truncated) expected.parse++;
    else if (v.defects.cycle) expected.cycle++;
    else if (v.defects.badTool) expected.tool++;
    else expected.accepted++;
    const intent = INTENTS[i % INTENTS.length]!;
    expected.perIntent.set(intent, (expected.perIntent.get(intent) ?? 0) + 1);
    let line = `{"id":${i},"intent":"${intent}","profile":${profiles[i % profiles.length]},"completion":${completion}}\n`;
    if (i % 10_000 === 5000) {
      line += '{"id": "broken", "completion": "\n';
      expected.malformed++;
    }
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  const bytes = (await stat(input)).size;
  t.ok(bytes > 4 * HEAP_MB * 2 ** 20, `input (${(bytes / 2 ** 20).toFixed(0)} MB) is far larger than the heap cap`);

  const started = performance.now();
  const r = await cli(['audit', input, '--quiet', '--out', path.join(dir, 'out')], [`--max-old-space-size=${HEAP_MB}`]);
  const seconds = (performance.now() - started) / 1000;
  t.equal(r.code, 0, r.stderr);
  const s = JSON.parse(await readFile(path.join(dir, 'out', 'summary.json'), 'utf8'));
  t.comment(
    `${N} plans, ${(bytes / 2 ** 20).toFixed(0)} MB: ${seconds.toFixed(1)} s wall, ${s.run.plans_per_second} plans/s, peak RSS ${(s.run.peak_rss_bytes / 2 ** 20).toFixed(0)} MB`,
  );

  t.same(s.lines, { total: N + expected.malformed, blank: 0, malformed: expected.malformed, scored: N });
  t.equal(s.gate.accepted, expected.accepted);
  const reason = (code: string) => s.gate.by_reason.find((x: { reason: string }) => x.reason === code)?.count ?? 0;
  t.equal(reason('parse_error'), expected.parse);
  t.equal(reason('cycle'), expected.cycle);
  t.equal(reason('tool_not_in_agent_tools'), expected.tool);
  t.equal(s.topology.plans, expected.accepted);
  t.equal(s.topology.metrics.steps.median, 10, 'every realistic plan has 10 steps');
  t.same(Object.fromEntries(s.intents.map((x: { intent: string; n: number }) => [x.intent, x.n])), Object.fromEntries(expected.perIntent));
  t.ok(s.run.peak_rss_bytes < 400 * 2 ** 20, 'peak RSS stays far below the input size');
});
