// The /validate-plan answer as text: the hard gate, the rewards with their components, the violations.
import { el, fmt } from './shell.js';

const AXES = [
  ['struct', 'Structural', 'R_struct = (DAG + DC + ATR) / 3'],
  ['pers', 'Personalization', 'share of the profile’s signals the plan mentions'],
  ['ped', 'Pedagogy', 'Merrill phases detected / 4'],
];
const SCORED = ['activation', 'demonstration', 'application', 'integration'];

function table(head, rows, numeric = []) {
  const t = el('table', undefined, 'compact');
  const tr = el('tr');
  head.forEach((h, i) => {
    const th = el('th', h, numeric.includes(i) ? 'num' : undefined);
    th.scope = 'col';
    tr.append(th);
  });
  t.append(el('thead'), el('tbody'));
  t.tHead.append(tr);
  for (const row of rows) {
    const r = el('tr');
    row.forEach((cell, i) => {
      const td = el('td', undefined, numeric.includes(i) ? 'num' : undefined);
      if (cell instanceof Node) td.append(cell);
      else td.textContent = cell;
      r.append(td);
    });
    t.tBodies[0].append(r);
  }
  return t;
}

function pill(text, cls, attrs = {}) {
  const p = el('span', text, `pill${cls ? ` ${cls}` : ''}`);
  for (const [k, v] of Object.entries(attrs)) p.setAttribute(k, v);
  return p;
}

/** The gate line: passed, or failed with its reasons and the messages behind them. */
export function renderGate(box, res) {
  box.replaceChildren();
  box.className = `plan-gate ${res.gate.failed ? 'failed' : 'passed'}`;
  box.dataset.failed = String(res.gate.failed);
  const line = el('p');
  line.append(el('strong', `Hard gate: ${res.gate.failed ? 'failed' : 'passed'}`));
  if (res.gate.failed) {
    line.append(' — ');
    for (const r of res.gate.reasons) line.append(pill(r, 'bad', { 'data-reason': r }), ' ');
    line.append(`class ${res.gate.classes.join(', ')} · R_hard ${fmt(res.gate.penalty, 1)}`);
  }
  line.append(` · score ${fmt(res.score)}`);
  box.append(line);
  if (res.gate.failed) {
    const ul = el('ul', undefined, 'gate-reasons');
    for (const r of res.gate.reasons) {
      const vs = res.violations.filter((v) => v.code === r);
      for (const v of vs.slice(0, 3)) {
        const li = el('li');
        li.append(el('code', r), ' ', el('code', v.path, 'path'), ` ${v.message}`);
        ul.append(li);
      }
      if (vs.length > 3) ul.append(el('li', `… and ${vs.length - 3} more ${r} (see Violations)`));
    }
    box.append(ul);
  }
  if (!res.parsed) box.append(el('p', 'The plan did not parse into the schema, so there is no graph and every soft reward is 0.', 'note'));
}

export function renderRewards(box, res) {
  box.replaceChildren();
  const c = res.components;
  const rows = AXES.map(([k, name, what]) => [
    `${name} (${k})`,
    k === 'pers' && c && c.pers === null ? '–' : fmt(res.raw[k]),
    fmt(res.weights[k], 2),
    k === 'pers' && c && c.pers === null ? 'not computed: no profile given' : what,
  ]);
  rows.push(['Score', fmt(res.score), '', res.gate.failed ? '0: the gate is closed' : 'Σ w·R with the initial weights']);
  box.append(table(['Axis', 'R', 'w', ''], rows, [1, 2]));
  if (!c) {
    box.append(el('p', 'No components: the plan did not parse.', 'note'));
    return;
  }
  const s = c.struct;
  box.append(el('h4', 'Structural components'));
  box.append(
    table(
      ['Component', 'Value', 'Meaning'],
      [
        ['DAG', fmt(s.dag, 0), 'no dependency cycle (bounded loops excepted)'],
        ['DC', fmt(s.dc), 'share of depends_on entries naming an existing step'],
        ['ATR', fmt(s.atr), 'mean of the two below'],
        ['step–tool validity', fmt(s.step_tool_validity), 'steps whose agent exists and may use their tool'],
        ['agent coverage', fmt(s.agent_coverage), s.unused_agents.length ? `unused: ${s.unused_agents.join(', ')}` : 'every agent runs a step'],
      ],
      [1],
    ),
  );
  box.append(el('h4', 'Personalization'));
  if (c.pers === null) {
    box.append(el('p', 'Not computed: add a learner profile above.', 'note'));
  } else {
    const p = c.pers;
    const hits = p.hits.map((h) => `${h.label}${h.matched.length ? ` (${h.matched.join(', ')})` : ''}`);
    box.append(
      table(
        ['', 'Signals'],
        [
          [`hits ${p.hits.length}`, hits.join('; ') || '–'],
          [`misses ${p.misses.length}`, p.misses.map((m) => m.label).join('; ') || '–'],
        ],
      ),
    );
  }
  box.append(el('h4', 'Pedagogy (Merrill phases)'));
  const ped = c.ped;
  box.append(
    table(
      ['Phase', 'Detected', 'Steps', 'First position'],
      Object.entries(ped.phases).map(([name, ph]) => [
        SCORED.includes(name) ? name : `${name} (not scored)`,
        ph.detected ? 'yes' : 'no',
        ph.steps.join(', ') || '–',
        ph.first_position === null ? '–' : fmt(ph.first_position, 2),
      ]),
      [3],
    ),
  );
  const noHuman = ped.steps.filter((st) => st.activation_without_human_input).map((st) => st.step);
  if (noHuman.length) box.append(el('p', `Activation cue without human_input: true (not counted): ${noHuman.join(', ')}.`, 'note'));
  if (res.topology) {
    const t = res.topology;
    box.append(el('h4', 'Topology'));
    box.append(
      table(
        ['Steps', 'Edges', 'Density', 'Max fan-in / out', 'Layer width', 'Critical path', 'Inter-agent edges'],
        [
          [
            String(t.steps),
            String(t.edges),
            fmt(t.edge_density),
            `${t.max_fan_in} / ${t.max_fan_out}`,
            t.layer_width === null ? '– (cycle)' : String(t.layer_width),
            t.critical_path === null ? '– (cycle)' : String(t.critical_path),
            fmt(t.inter_agent_edge_ratio, 2),
          ],
        ],
        [0, 1, 2, 4, 5, 6],
      ),
    );
  }
}

export function renderViolations(box, res) {
  box.replaceChildren();
  if (res.violations.length === 0) box.append(el('p', 'No violations.', 'note'));
  else {
    const rows = res.violations.map((v) => {
      const code = el('code', v.code);
      return [code, pill(v.severity, v.severity === 'error' ? 'bad' : 'warn'), el('code', v.path, 'path'), v.message];
    });
    const t = table(['Code', 'Severity', 'Path', 'Message'], rows);
    [...t.tBodies[0].rows].forEach((r, i) => {
      r.dataset.code = res.violations[i].code;
    });
    box.append(t);
  }
  if (res.normalizations.length) {
    box.append(el('h4', 'Normalizations'));
    box.append(
      table(
        ['Path', 'Rule', 'Detail'],
        res.normalizations.map((n) => [el('code', n.path), n.rule, n.detail]),
      ),
    );
  }
}
