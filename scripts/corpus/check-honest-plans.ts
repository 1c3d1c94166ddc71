// Runs every plan of the honest corpus through the service's own evaluation (evaluatePlan with the default palette,
// the configured plan limits and the default λ_hard, paper profile, not strict) and checks what the corpus promises:
// every plan parses, passes the hard gate with no violation at all, and scores R_struct = 1 and R_ped = 1 (all four
// Merrill phases). Prints a summary: groups per source and split, plans per style, mean raw rewards, and how many
// plans raise each gaming signal. Exits 1 when any check fails.
//
//   npx tsx scripts/corpus/check-honest-plans.ts [--corpus test/fixtures/plans/honest-corpus.json] [--json summary.json]
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig, planLimits } from '../../src/config.js';
import { GAMING_SIGNAL_CODES, type GamingSignalCode } from '../../src/contracts/gaming.js';
import type { Plan } from '../../src/contracts/plan.js';
import { resolvePalette } from '../../src/plan/palette.js';
import { evaluatePlan, groupContext, type PlanEvaluation } from '../../src/scoring/evaluate-plan.js';
import { DEFAULT_SCORING } from '../../src/scoring/score-groups.js';
import type { CorpusGroup, HonestCorpus } from '../../src/redteam/evaluation.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAX_BYTES = 2.5 * 1024 * 1024;

interface Row {
  group: CorpusGroup;
  style: string;
  e: PlanEvaluation;
  /** The same plan under reward_profile guarded. */
  guarded: PlanEvaluation;
}

const { values } = parseArgs({
  options: {
    corpus: { type: 'string', default: path.join(REPO, 'test/fixtures/plans/honest-corpus.json') },
    json: { type: 'string' },
  },
});

const failures: string[] = [];
const fail = (where: string, what: string) => failures.push(`${where}: ${what}`);

const bytes = statSync(values.corpus).size;
if (bytes > MAX_BYTES) fail('corpus', `${(bytes / 1024 / 1024).toFixed(2)} MB, over 2.5 MB`);
const corpus = JSON.parse(readFileSync(values.corpus, 'utf8')) as HonestCorpus;
if (corpus.version !== 1) fail('corpus', `version ${corpus.version}, expected 1`);
for (const source of ['coding-tutor', 'mathdial']) if (!corpus.sources?.[source]) fail('corpus', `no attribution for ${source}`);

const palette = resolvePalette(undefined);
const limits = planLimits(loadConfig());
const options = { strict: false, lambda_hard: DEFAULT_SCORING.lambda_hard, reward_profile: 'paper' as const };

// ------------------------------------------------------------------ what each style promises, read from the plan
const dependents = (plan: Plan) => {
  const n = new Map<string, number>();
  for (const s of plan.steps) for (const d of s.depends_on) n.set(d, (n.get(d) ?? 0) + 1);
  return n;
};
const text = (plan: Plan) => plan.steps.map((s) => `${s.instruction} ${s.expected_output ?? ''}`).join(' ');
const STYLE_RULES: Record<string, { sources: string[]; check: (plan: Plan) => string | null }> = {
  'multi-agent': {
    sources: ['coding-tutor', 'mathdial'],
    check: (p) =>
      p.agents.length !== 3
        ? `${p.agents.length} agents, expected 3`
        : p.steps.length < 5 || p.steps.length > 8
          ? `${p.steps.length} steps, expected 5-8`
          : Math.max(0, ...dependents(p).values()) < 2
            ? 'no fan-out'
            : null,
  },
  'single-agent': {
    sources: ['coding-tutor', 'mathdial'],
    check: (p) =>
      p.agents.length !== 1
        ? `${p.agents.length} agents, expected 1`
        : p.steps.some((s, i) => (i === 0 ? s.depends_on.length !== 0 : s.depends_on.join() !== p.steps[i - 1]!.id))
          ? 'not a chain'
          : null,
  },
  compact: { sources: ['coding-tutor', 'mathdial'], check: (p) => (p.steps.length < 3 || p.steps.length > 4 ? `${p.steps.length} steps, expected 3-4` : null) },
  prose: { sources: ['coding-tutor', 'mathdial'], check: (p) => (p.steps.some((s) => !s.expected_output) ? 'a step without expected_output' : null) },
  'alt-cues': {
    sources: ['coding-tutor', 'mathdial'],
    check: (p) => {
      // Case-insensitive: a lead-in ("Since you know pandas, now watch me …") lowercases the cue.
      const missing = ['let us recall', 'now watch me', 'your turn:', 'wrap up by'].filter((cue) => !text(p).toLowerCase().includes(cue));
      return missing.length > 0 ? `missing ${missing.join(', ')}` : null;
    },
  },
  'teacher-voice': { sources: ['mathdial'], check: (p) => ((text(p).match(/"[^"]+"/g) ?? []).length < 2 ? 'fewer than two quoted teacher turns' : null) },
};

/** Lowercased, whitespace squashed, without trailing punctuation: how a reference sentence is recognised inside a step. */
const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.;:]+$/, '');

// ------------------------------------------------------------------ evaluate
const rows: Row[] = [];
const queries = new Set<string>();
for (const g of corpus.groups) {
  if (queries.has(g.query)) fail(g.id, 'query repeated in another group');
  queries.add(g.query);
  if (g.reference.length === 0) fail(g.id, 'empty reference');
  if (g.plans.length !== 3) fail(g.id, `${g.plans.length} plans, expected 3`);
  if (new Set(g.plans.map((p) => p.style)).size !== g.plans.length) fail(g.id, 'two plans of one style');
  const context = groupContext(g.query, g.profile);
  for (const { style, plan } of g.plans) {
    const where = `${g.id} [${style}]`;
    const rule = STYLE_RULES[style];
    if (!rule) fail(where, 'unknown style');
    else if (!rule.sources.includes(g.source)) fail(where, `style not used for ${g.source}`);
    else {
      const problem = rule.check(plan);
      if (problem) fail(where, problem);
    }
    const body = norm(text(plan));
    if (!g.reference.some((r) => body.includes(norm(r)))) fail(where, 'quotes no reference sentence');
    const e = evaluatePlan(plan, context, palette, limits, options);
    rows.push({ group: g, style, e, guarded: evaluatePlan(plan, context, palette, limits, { ...options, reward_profile: 'guarded' }) });
    if (!e.parsed) fail(where, `does not parse: ${e.violations.map((v) => v.code).join(', ')}`);
    if (e.gate.failed) fail(where, `gate closed: ${e.gate.reasons.join(', ')}`);
    if (e.violations.length > 0) fail(where, `violations: ${e.violations.map((v) => `${v.code} (${v.severity}) at ${v.path}`).join('; ')}`);
    if (e.raw.struct !== 1) fail(where, `R_struct ${e.raw.struct.toFixed(3)}`);
    if (e.raw.ped !== 1) {
      const missing = e.components ? Object.entries(e.components.ped.phases).filter(([p, s]) => !s.detected && p !== 'feedback' && p !== 'consolidate') : [];
      fail(where, `R_ped ${e.raw.ped}: ${missing.map(([p]) => p).join(', ')} not detected`);
    }
  }
}
for (const source of ['coding-tutor', 'mathdial'])
  for (const split of ['calibration', 'evaluation'])
    if (!corpus.groups.some((g) => g.source === source && g.split === split)) fail('split', `no ${source} group in ${split}`);

// ------------------------------------------------------------------ summary
const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
const f3 = (x: number) => x.toFixed(3);
const table = (head: string[], body: (string | number)[][]) => {
  const cells = [head, ...body.map((r) => r.map(String))];
  const width = head.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (i === 0 ? c.padEnd(width[i]!) : c.padStart(width[i]!))).join(' | ')} |`;
  return [
    line(head),
    `| ${width.map((w, i) => (i === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`)).join(' | ')} |`,
    ...body.map((r) => line(r.map(String))),
  ].join('\n');
};
const sources = ['coding-tutor', 'mathdial'] as const;
const styles = Object.keys(STYLE_RULES);

const out: string[] = [];
out.push(`${values.corpus}: ${corpus.groups.length} groups, ${rows.length} plans, ${(bytes / 1024 / 1024).toFixed(2)} MB`);
out.push('', 'Groups per source and split');
out.push(
  table(
    ['source', 'calibration', 'evaluation', 'all'],
    [
      ...sources.map((s) => {
        const gs = corpus.groups.filter((g) => g.source === s);
        return [s, gs.filter((g) => g.split === 'calibration').length, gs.filter((g) => g.split === 'evaluation').length, gs.length];
      }),
      [
        'all',
        corpus.groups.filter((g) => g.split === 'calibration').length,
        corpus.groups.filter((g) => g.split === 'evaluation').length,
        corpus.groups.length,
      ],
    ],
  ),
);

const axisRow = (label: string, rs: Row[]) => {
  const flagged = rs.filter((r) => r.e.gaming_flags.length > 0).length;
  return [
    label,
    rs.length,
    f3(mean(rs.map((r) => r.e.raw.struct))),
    f3(mean(rs.map((r) => r.e.raw.pers))),
    f3(mean(rs.map((r) => r.e.raw.ped))),
    f3(mean(rs.map((r) => r.guarded.raw.struct))),
    f3(mean(rs.map((r) => r.guarded.raw.pers))),
    f3(mean(rs.map((r) => r.guarded.raw.ped))),
    `${flagged}`,
  ];
};
const axisHead = ['plans', 'n', 'paper struct', 'paper pers', 'paper ped', 'guarded struct', 'guarded pers', 'guarded ped', 'flagged'];
out.push('', 'Plans per style and source, mean raw rewards (paper profile; guarded for comparison), plans raising any signal');
out.push(
  table(axisHead, [
    ...styles
      .flatMap((st) => sources.map((s) => [st, s, rows.filter((r) => r.style === st && r.group.source === s)] as const).filter(([, , rs]) => rs.length > 0))
      .map(([st, s, rs]) => axisRow(`${st} / ${s}`, rs)),
    ...sources.map((s) =>
      axisRow(
        `all / ${s}`,
        rows.filter((r) => r.group.source === s),
      ),
    ),
    ...(['calibration', 'evaluation'] as const).map((sp) =>
      axisRow(
        `all / ${sp}`,
        rows.filter((r) => r.group.split === sp),
      ),
    ),
    axisRow('all', rows),
  ]),
);

const count = (rs: Row[], code: GamingSignalCode) => rs.filter((r) => r.e.gaming_flags.includes(code)).length;
out.push('', 'Plans raising each gaming signal (gaming_flags)');
out.push(
  table(
    ['signal', ...sources, ...styles, 'all'],
    GAMING_SIGNAL_CODES.map((code) => [
      code,
      ...sources.map((s) =>
        count(
          rows.filter((r) => r.group.source === s),
          code,
        ),
      ),
      ...styles.map((st) =>
        count(
          rows.filter((r) => r.style === st),
          code,
        ),
      ),
      `${count(rows, code)} of ${rows.length}`,
    ]),
  ),
);

out.push('');
if (failures.length === 0) out.push(`OK: every plan parses, passes the gate with no violation, and scores paper R_struct = 1 and R_ped = 1.`);
else
  out.push(
    `${failures.length} failure(s):`,
    ...failures.slice(0, 50).map((f) => `  ${f}`),
    ...(failures.length > 50 ? [`  … ${failures.length - 50} more`] : []),
  );
console.log(out.join('\n'));

if (values.json) {
  const summary = {
    corpus: path.relative(REPO, values.corpus),
    groups: corpus.groups.length,
    plans: rows.length,
    failures,
    signals: Object.fromEntries(GAMING_SIGNAL_CODES.map((code) => [code, count(rows, code)])),
    plans_flagged: rows.filter((r) => r.e.gaming_flags.length > 0).length,
  };
  writeFileSync(values.json, `${JSON.stringify(summary, null, 2)}\n`);
}
process.exitCode = failures.length === 0 ? 0 : 1;
