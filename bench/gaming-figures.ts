import { GAMING_SIGNAL_CODES, type GamingSignalCode } from '../src/contracts/gaming.js';

/** What `npm run bench:gaming` measures, written to bench/results/gaming.json. */
export interface GamingFigures {
  calibration: {
    plans: number;
    /** Per signal: its threshold, the largest measure a real plan reached, and how many real plans raised it. */
    signals: Record<GamingSignalCode, { threshold: number; max_real: number; raised: number }>;
    /** Spearman ρ of the paper and guarded scores over the real plans. */
    spearman: number;
  };
  redteam: { budget: number; seeds: number[]; groups: number; margin: { paper: number[]; guarded: number[] } };
  latency: { baseline: string; rounds: number; batch: string; p50_ms: { baseline: number; gaming: number }; ratio: number };
}

const f = (x: number, d = 3) => x.toFixed(d);

/** The figures as the Markdown tables docs/rewards.md embeds (bench/figures.ts; test/bench-figures.test.ts holds the two equal). */
export function renderGamingFigures(g: GamingFigures): string {
  const c = g.calibration;
  const r = g.redteam;
  const l = g.latency;
  return [
    `Calibration on ${c.plans} real plans (Spearman ρ of paper and guarded scores: ${f(c.spearman)}):`,
    '',
    '| signal | fires above | largest on a real plan | real plans raising it |',
    '| --- | --- | --- | --- |',
    ...GAMING_SIGNAL_CODES.map(
      (code) => `| \`${code}\` | ${f(c.signals[code].threshold, 2)} | ${f(c.signals[code].max_real, 2)} | ${c.signals[code].raised} of ${c.plans} |`,
    ),
    '',
    `Red-team, ${r.budget} plans per group over ${r.groups} groups, seeds ${r.seeds.join(', ')}: exploit margin`,
    '',
    '| profile | margin per seed |',
    '| --- | --- |',
    `| paper | ${r.margin.paper.map((m) => f(m)).join(', ')} |`,
    `| guarded | ${r.margin.guarded.map((m) => f(m)).join(', ')} |`,
    '',
    `\`/score-plan\` ${l.batch}, one client, p50 over ${l.rounds} rounds taken in turns with the baseline build (${l.baseline}): ` +
      `${f(l.p50_ms.baseline, 1)} ms before, ${f(l.p50_ms.gaming, 1)} ms with the signals, ${f(l.ratio, 2)}× (target ≤ 1.3×).`,
    '',
  ].join('\n');
}
