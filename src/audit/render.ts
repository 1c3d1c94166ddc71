import { TOPOLOGY_METRICS, type AuditSummary, type RewardMeans } from './aggregate.js';

// The summary as PersonalPlan-style tables (T3 gate rejections, T4 topology, T5 per intent), rendered as
// aligned plain text for a terminal or as GitHub markdown. Both come from the same rows.

export interface Table {
  title: string;
  head: string[];
  /** Columns from this index on are numeric (right-aligned). */
  numericFrom: number;
  rows: string[][];
  note?: string;
}

const int = (x: number) => String(x);
const pct = (x: number | null) => (x === null ? '—' : `${(100 * x).toFixed(1)}%`);
/** Integers as they are, everything else to 3 decimals; null as a dash. */
const num = (x: number | null) => (x === null ? '—' : Number.isInteger(x) ? String(x) : x.toFixed(3));

export function auditTables(s: AuditSummary): Table[] {
  const scored = s.lines.scored;
  const tables: Table[] = [];

  tables.push({
    title: 'Input',
    head: ['', 'lines'],
    numericFrom: 1,
    rows: [
      ['scored records', int(scored)],
      ['malformed lines', int(s.lines.malformed)],
      ['blank lines', int(s.lines.blank)],
      ['total', int(s.lines.total)],
    ],
    note: s.malformed_examples.length
      ? `malformed: ${s.malformed_examples.map((m) => `line ${m.line} (${m.reason})`).join('; ')}${s.lines.malformed > s.malformed_examples.length ? '; …' : ''}`
      : undefined,
  });

  tables.push({
    title: 'Static gate: rejections by reason (T3)',
    head: ['reason', 'class', 'plans', 'share'],
    numericFrom: 2,
    rows: [
      ['accepted', '', int(s.gate.accepted), pct(scored ? s.gate.accepted / scored : null)],
      ['rejected (any reason)', '', int(s.gate.rejected), pct(s.gate.rejected_share)],
      ...s.gate.by_class.map((c) => [`  class: ${c.reason}`, '', int(c.count), pct(c.share)]),
      ...s.gate.by_reason.map((r) => [`  ${r.reason}`, r.class ?? 'strict', int(r.count), pct(r.share)]),
    ],
    note: 'share of scored records; a plan rejected for several reasons counts under each',
  });

  tables.push({
    title: `Topology of accepted plans (T4), n = ${s.topology.plans}`,
    head: ['metric', 'mean', 'median', 'p10', 'p90', 'min', 'max'],
    numericFrom: 1,
    rows: TOPOLOGY_METRICS.map((m) => {
      const q = s.topology.metrics[m];
      return [m + (q.exact ? '' : ' ≈'), num(q.mean), num(q.median), num(q.p10), num(q.p90), num(q.min), num(q.max)];
    }),
    note: TOPOLOGY_METRICS.some((m) => !s.topology.metrics[m].exact)
      ? '≈: quantiles from the log-bucketed sketch, within 0.5 % relative error'
      : 'quantiles exact (linear interpolation between order statistics)',
  });

  const rewardRow = (label: string, r: RewardMeans) => [
    label,
    int(r.n),
    pct(r.acceptance_rate),
    num(r.struct),
    r.pers === null ? '—' : `${num(r.pers)} (${r.with_profile})`,
    num(r.ped),
    num(r.score),
  ];
  const rewardHead = ['', 'plans', 'accepted', 'R_struct', 'R_pers (n)', 'R_ped', 'score'];
  tables.push({
    title: 'Raw soft rewards, all scored plans',
    head: rewardHead,
    numericFrom: 1,
    rows: [rewardRow('all', s.rewards)],
    note: 'means over every scored plan (unparsed plans at 0); R_pers over plans with a profile (n)',
  });
  if (s.intents) {
    tables.push({
      title: 'Per intent (T5)',
      head: ['intent', ...rewardHead.slice(1)],
      numericFrom: 1,
      rows: s.intents.map((r) => rewardRow(r.intent, r)),
    });
  }
  return tables;
}

/** Aligned plain-text rendering. */
export function renderText(tables: readonly Table[]): string {
  return `${tables
    .map((t) => {
      const all = [t.head, ...t.rows];
      const widths = t.head.map((_, c) => Math.max(...all.map((r) => width(r[c] ?? ''))));
      const line = (r: readonly string[]) =>
        r
          .map((cell, c) => (c >= t.numericFrom ? cell.padStart(widths[c]! + cell.length - width(cell)) : cell.padEnd(widths[c]! + cell.length - width(cell))))
          .join('  ')
          .trimEnd();
      const rule = widths.map((w) => '-'.repeat(w)).join('  ');
      return [t.title, line(t.head), rule, ...t.rows.map(line), ...(t.note ? [`(${t.note})`] : [])].join('\n');
    })
    .join('\n\n')}\n`;
}

/** GitHub-flavoured markdown rendering. */
export function renderMarkdown(tables: readonly Table[], heading: string): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const parts = [`# ${heading}`];
  for (const t of tables) {
    const align = t.head.map((_, c) => (c >= t.numericFrom ? '---:' : '---'));
    parts.push(
      [
        `## ${t.title}`,
        '',
        `| ${t.head.map(esc).join(' | ')} |`,
        `| ${align.join(' | ')} |`,
        ...t.rows.map((r) => `| ${r.map((c) => esc(c.trim() === '' ? '' : c.replace(/^ +/, '&nbsp;&nbsp;'))).join(' | ')} |`),
        ...(t.note ? ['', `*${esc(t.note)}*`] : []),
      ].join('\n'),
    );
  }
  return `${parts.join('\n\n')}\n`;
}

/** Display width: code points (every character used here is one column wide). */
function width(s: string): number {
  return [...s].length;
}
