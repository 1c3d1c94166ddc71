import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { corpusGroups, realPlans } from '../support/real-plans.js';
import { cli } from './support.js';

t.test("redteam: both profiles reported, exploits under paper only (guarded with the records' reference), the full report in --out", async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'plan-redteam-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const input = path.join(dir, 'plans.json');
  const g = corpusGroups('calibration')[0]!;
  const records = g.plans.map((p) => ({ id: g.id, query: g.query, profile: g.profile, reference: g.reference, plan: p.plan }));
  await writeFile(input, JSON.stringify([...records, { ...records[0]!, plan: 'not a plan' }]));
  const out = path.join(dir, 'report.json');
  const r = await cli(['redteam', input, '--budget', '120', '--out', out]);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /reward_profile paper: exploit margin 0\.\d+ \(budget 120 plans per group, seed 1\)/);
  t.match(r.stdout, /reward_profile guarded: exploit margin 0\.000 /);
  t.match(r.stdout, /1 plan\(s\) that do not pass the gate were left out/);
  const reports = JSON.parse(await readFile(out, 'utf8')) as { profile: string; margin: number; groups: { exploit: { plan: unknown } | null }[] }[];
  t.same(
    reports.map((x) => x.profile),
    ['paper', 'guarded'],
  );
  t.ok(reports[0]!.margin > 0 && reports[0]!.groups.some((g) => g.exploit?.plan), 'the paper exploits, plans included');
  t.ok(reports[1]!.margin <= 0);
});

t.test('redteam usage errors exit 2 with the reason', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'plan-redteam-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const input = path.join(dir, 'plans.json');
  await writeFile(input, JSON.stringify(realPlans().slice(0, 1)));
  const bad = path.join(dir, 'bad.json');
  await writeFile(bad, JSON.stringify([{ query: 'q', profile: 5, plan: {} }]));
  const noPlan = path.join(dir, 'no-plan.json');
  await writeFile(noPlan, JSON.stringify([{ query: 'q', profile: 'p', steps: [] }]));
  for (const [args, reason] of [
    [['redteam'], /expected one input file, got 0/],
    [['redteam', path.join(dir, 'missing.json')], /input file not found/],
    [['redteam', input, '--profile', 'lenient'], /--profile must be paper, guarded or both/],
    [['redteam', input, '--budget', '0'], /--budget must be a positive integer/],
    [['redteam', bad], /record 1: profile/],
    [['redteam', noPlan], /record 1: no plan \(expected a "completion", "plan", "output" field\)/],
  ] as const) {
    const r = await cli([...args]);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, reason);
    // The one line, then this command's usage alone: not every command's.
    t.match(r.stderr, /^plan-reward: [^\n]+\n\nUsage: plan-reward redteam /);
    t.notMatch(r.stderr, /Usage: plan-reward audit/);
  }
});

t.test('redteam reads the project\'s own example file, as the audit does (the plan under "completion")', async (t) => {
  const example = new URL('../../examples/plans.jsonl', import.meta.url).pathname;
  const r = await cli(['redteam', example, '--budget', '20', '--profile', 'guarded']);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /reward_profile guarded: exploit margin/);
});
