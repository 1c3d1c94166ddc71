import { GAMING_SIGNAL_CODES, REWARD_PROFILES } from '../src/contracts/gaming.js';
import { FAMILY_NAMES } from '../src/redteam/families.js';
import type { GuardedEvaluation } from '../src/redteam/evaluation.js';
import type { BenchResult } from './results.js';

/** What `npm run bench:guarded` measures, written to bench/results/guarded-eval.json. */
export interface GuardedEvalFigures {
  corpus: { file: string; split: string | null; groups: number; plans: number; sources: string[] };
  without_reference: GuardedEvaluation;
  /** null when the groups have no reference (the real plans, before the corpus existed). */
  with_reference: GuardedEvaluation | null;
}

const pct = (x: { count: number; share: number }) => `${x.count} (${(100 * x.share).toFixed(0)} %)`;
const f3 = (x: number | null) => (x === null ? '—' : x.toFixed(3));

function honestRows(label: string, e: GuardedEvaluation): string[] {
  const h = e.honest;
  const signals = GAMING_SIGNAL_CODES.filter((c) => h.flagged.signals[c].count > 0).map((c) => `\`${c}\` ${h.flagged.signals[c].count}`);
  return [
    `| ${label} | ${pct(h.flagged.any)}${signals.length ? ` (${signals.join(', ')})` : ''} | ${pct(h.guarded_at_least_95pct_of_paper)} | ${f3(h.spearman_paper_guarded)} | ${f3(h.mean_score.paper)} / ${f3(h.mean_score.guarded)} |`,
  ];
}

/** The figures as the Markdown tables docs/rewards.md embeds (bench/figures.ts; test/bench-figures.test.ts holds the two equal). */
export function renderGuardedEval(r: BenchResult<GuardedEvalFigures>): string {
  const f = r.figures;
  const modes = [['no reference', f.without_reference], ...(f.with_reference ? [['with reference', f.with_reference] as const] : [])] as const;
  const e0 = f.without_reference;
  const fluent0 = e0.fluent?.guarded ?? e0.fluent?.paper;
  const removal0 = e0.removal.guarded ?? e0.removal.paper;
  const lines = [
    `\`npm run bench:guarded\`, ${r.date.slice(0, 16).replace('T', ' ')} UTC, build ${r.machine?.commit ?? '?'}, on ${f.corpus.file}${f.corpus.split ? `, split ${f.corpus.split}` : ''}: ${f.corpus.groups} groups (${f.corpus.sources.join(', ')}), ${f.corpus.plans} honest plans.`,
    '',
    '**Honest plans** (target: ≤ 2 % flagged, guarded ≥ 0.95 × paper for ≥ 95 %, ρ ≥ 0.9)',
    '',
    '| scored | flagged | guarded ≥ 0.95 × paper | Spearman ρ paper vs guarded | mean score paper / guarded |',
    '| --- | --- | --- | --- | --- |',
    ...modes.flatMap(([label, e]) => honestRows(label, e)),
    '',
    `**Adversary families**: variants (of ${e0.families[FAMILY_NAMES[0]]?.variants ?? 0} per family over ${e0.groups} groups) scoring at or above the lowest honest plan of their group (target: none)`,
    '',
    `| family | paper | ${modes.map(([label]) => `guarded, ${label}`).join(' | ')} |`,
    `| --- | --- | ${modes.map(() => '---').join(' | ')} |`,
    ...FAMILY_NAMES.filter((n) => e0.families[n]).map((n) => {
      const paper = e0.families[n]!.profiles.paper;
      return `| \`${n}\` | ${paper ? pct(paper.at_or_above_lowest_honest) : '—'} | ${modes
        .map(([, e]) => {
          const g = e.families[n]?.profiles.guarded;
          return g ? pct(g.at_or_above_lowest_honest) : '—';
        })
        .join(' | ')} |`;
    }),
    '',
  ];
  if (fluent0) {
    lines.push(
      `**Fluent optimizer**: ${fluent0.budget} evaluations per run, seeds ${fluent0.seeds.join(', ')}, ${fluent0.groups.length} groups; runs whose best plan reaches the best honest plan of its group (target: none)`,
      '',
      '| profile | scored | runs | best ≥ best honest | best ≥ lowest honest | largest margin over the best honest |',
      '| --- | --- | --- | --- | --- | --- |',
      ...modes.flatMap(([label, e]) =>
        REWARD_PROFILES.filter((p) => e.fluent?.[p] && (p === 'guarded' || label === 'no reference')).map((p) => {
          const x = e.fluent![p]!;
          return `| ${p} | ${label} | ${x.runs} | ${pct(x.at_or_above_best_honest)} | ${pct(x.at_or_above_lowest_honest)} | ${f3(x.max_margin_over_best_honest)} |`;
        }),
      ),
      '',
    );
  }
  lines.push(
    `**Removal**: ${removal0?.plans ?? 0} honest plans, walks of ${removal0?.budget} evaluations each deleting steps or sentences or hollowing steps; "hollowed": ≥ ${((removal0?.share ?? 0.3) * 100).toFixed(0)} % of the plan's step words removed (target: no hollowed plan at or above its original; ≥ 90 % of single edits lower the score, none raise it)`,
    '',
    '| profile | scored | hollowed ≥ original | largest (hollowed − original) | single edits lowering / raising / unchanged |',
    '| --- | --- | --- | --- | --- |',
    ...modes.flatMap(([label, e]) =>
      REWARD_PROFILES.filter((p) => e.removal[p] && (p === 'guarded' || label === 'no reference')).map((p) => {
        const x = e.removal[p]!;
        const s = x.single_edits;
        return `| ${p} | ${label} | ${pct(x.hollowed_at_or_above_original)} | ${f3(x.max_margin)} | ${pct(s.lowering)} / ${pct(s.raising)} / ${pct(s.unchanged)} of ${s.edits} |`;
      }),
    ),
  );
  return lines.join('\n');
}
