import type { RedTeamReport } from './search.js';

const f3 = (x: number) => x.toFixed(3);

/** A red-team report as a Markdown table, one row per group, with the margin over all groups. */
export function renderRedTeam(r: RedTeamReport): string {
  const rows = r.groups.map(
    (g) =>
      `| ${g.group} | ${f3(g.best_real)} | ${f3(g.best_found)} | ${f3(g.margin)} | ${g.exploit ? g.exploit.signals.join(', ') || 'none' : '—'} | ${g.exploit ? f3(g.exploit.guarded_score) : '—'} |`,
  );
  return [
    `reward_profile ${r.profile}: exploit margin ${f3(r.margin)} (budget ${r.budget} plans per group, seed ${r.seed})`,
    '',
    '| group | best real plan | best plan found | margin | signals the exploit raises | its guarded score |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
