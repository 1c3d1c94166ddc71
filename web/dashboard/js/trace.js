// The knowledge trace view: a task's dependencies and solution steps and a dialogue go to
// POST /trace-knowledge; p(known) of every knowledge component is drawn turn by turn, with the evidence
// that moved it. Turn k on the chart and in the tables is the k-th message (the API's `turn` k − 1); 0 is
// before the dialogue.
import uPlot from '../vendor/uPlot.esm.js';
import { dashedMarker } from './charts.js';
import { FieldError, formatDialogue, lines, parseDialogue, wireApiForm } from './forms.js';
import { el, fmt, mountShell } from './shell.js';

const form = document.getElementById('trace-form');
const errorBox = document.getElementById('error');
const status = document.getElementById('status');
const submit = document.getElementById('submit');
const field = (id) => document.getElementById(id);
const slider = field('turn');

// A new key is used by the next request: no reload, so what was typed stays.
mountShell('trace.html', () => {
  status.textContent = 'Key saved: the next request sends it.';
});

const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#17becf'];
const colorOf = (i) => PALETTE[i % PALETTE.length];
// Past the palette, lines repeat its colours with a different dash so that no two look alike.
const dashOf = (i) => [undefined, [2, 3], [8, 3, 2, 3]][Math.floor(i / PALETTE.length) % 3];
// KCs often share a trajectory (those no turn names stay at their prior), and one line would hide the
// others: each KC is drawn on a y scale of its own, shifted by a couple of pixels from its neighbour's, so
// that every line shows. The legend, the cursor and the threshold read the values themselves.
const HEIGHT = 380;
const SPREAD_PX = 2;
// About the plot's height inside the chart (the x axis takes the rest), to turn pixels into p.
const PLOT_PX = HEIGHT - 80;
function shiftOf(i, n) {
  const px = Math.min(SPREAD_PX, 24 / Math.max(1, n - 1));
  return ((i - (n - 1) / 2) * px) / PLOT_PX;
}

const NUMBERED = /^\s*\d+[.)]\s/m;

/** The request the form describes; FieldError for what cannot be sent. */
function readForm() {
  const task = {};
  const dependencies = field('task-dependencies').value;
  const steps = field('task-steps').value;
  if (dependencies.trim()) task.dependencies = dependencies;
  // Numbered steps go as the text, which the service splits at the numbers; otherwise a step per line.
  if (steps.trim()) task.solution_steps = NUMBERED.test(steps) ? steps : lines(steps);
  if (!task.dependencies && !task.solution_steps) throw new FieldError('task-dependencies', 'give at least one dependency or solution step');
  const request = { task, context: parseDialogue(field('dialogue').value) };
  const threshold = field('threshold').value.trim();
  if (threshold) {
    const t = Number(threshold);
    if (!(t > 0 && t <= 1)) throw new FieldError('threshold', 'a probability in (0, 1]');
    request.threshold = t;
  }
  return request;
}

const asText = (v) => (Array.isArray(v) ? v.join('\n') : (v ?? ''));

function fillForm(request) {
  field('task-dependencies').value = asText(request.task?.dependencies ?? request.task?.dependency_all);
  field('task-steps').value = asText(request.task?.solution_steps ?? request.task?.reference_steps);
  field('dialogue').value = formatDialogue(request.context ?? []);
  field('threshold').value = request.threshold ?? '';
}

function fieldOfPath(path) {
  if (/^\$\.task\.(solution_steps|reference_steps)/.test(path)) return 'task-steps';
  if (path.startsWith('$.task') || path === '$') return 'task-dependencies';
  if (path.startsWith('$.context')) return 'dialogue';
  if (path.startsWith('$.threshold')) return 'threshold';
  return undefined;
}

/** A legend-sized name: the id, with a long dependency path cut to its last two parts. */
function shortLabel(kc) {
  if (kc.kind !== 'dependency' || kc.id.length <= 32) return kc.id;
  return `dep:…${kc.text.split('.').slice(-2).join('.')}`;
}

/** p(known) of each KC after each turn: [turns 0..N, then one row per KC]. */
function seriesData(res) {
  const n = res.turns_total;
  const xs = Array.from({ length: n + 1 }, (_, x) => x);
  const ys = res.kcs.map((kc) => {
    const after = new Map(kc.evidence.map((ev) => [ev.turn + 1, ev.p_after]));
    let p = kc.p_before;
    return xs.map((x) => (p = after.get(x) ?? p));
  });
  return [xs, ...ys];
}

let chart;
let turns = [];
let evidenceRows = [];

/** The threshold as a dashed line across the plot (named on the right-hand axis, outside the lines). */
function drawThreshold(threshold) {
  return (u) => {
    const { ctx, bbox } = u;
    const y = Math.round(u.valToPos(threshold, 'y', true));
    const px = devicePixelRatio;
    ctx.save();
    ctx.strokeStyle = '#5b6575';
    ctx.lineWidth = 1.5 * px;
    ctx.setLineDash([7 * px, 5 * px]);
    ctx.beginPath();
    ctx.moveTo(bbox.left, y);
    ctx.lineTo(bbox.left + bbox.width, y);
    ctx.stroke();
    ctx.restore();
  };
}

function chartWidth(container) {
  return Math.max(320, container.clientWidth - 16);
}

function drawChart(res) {
  const container = field('trace-chart');
  chart?.destroy();
  container.replaceChildren();
  const n = res.turns_total;
  const opts = {
    width: chartWidth(container),
    height: HEIGHT,
    scales: {
      x: { time: false, range: [0, Math.max(1, n)] },
      y: { range: [0, 1] },
      ...Object.fromEntries(res.kcs.map((_kc, i) => [`kc${i}`, { range: [-shiftOf(i, res.kcs.length), 1 - shiftOf(i, res.kcs.length)] }])),
    },
    axes: [
      { label: 'Turn (messages read; 0 = before the dialogue)', incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000], values: (_u, vals) => vals.map(String) },
      { label: 'p(known)', values: (_u, vals) => vals.map((v) => v.toFixed(1)), size: 50 },
      { scale: 'y', side: 1, splits: () => [res.threshold], values: () => [`known ≥ ${res.threshold}`], grid: { show: false }, size: 100 },
    ],
    series: [
      { label: 'Turn', value: (_u, v) => (v === null || v === undefined ? '–' : String(v)) },
      ...res.kcs.map((kc, i) => ({
        label: shortLabel(kc),
        scale: `kc${i}`,
        stroke: colorOf(i),
        dash: dashOf(i),
        width: 2,
        points: { show: true, size: 5 },
        value: (_u, v) => fmt(v),
      })),
    ],
    legend: { live: true, markers: { dash: dashedMarker } },
    cursor: { y: false, drag: { x: false, y: false }, points: { size: 7 } },
    hooks: {
      draw: [drawThreshold(res.threshold)],
      setCursor: [
        (u) => {
          if (u.cursor.idx === null || u.cursor.idx === undefined) return;
          slider.value = String(u.cursor.idx);
          highlight(u.cursor.idx);
        },
      ],
    },
  };
  chart = new uPlot(opts, seriesData(res), container);
  container.dataset.series = String(res.kcs.length);
  container.dataset.turns = String(n);
  // Series labels carry the full KC text on hover.
  for (const [i, row] of [...container.querySelectorAll('.u-legend .u-series')].slice(1).entries()) row.title = `${res.kcs[i].id}: ${res.kcs[i].text}`;
}

/** Highlights the evidence of turn `x` and says what was said then. */
function highlight(x) {
  for (const row of evidenceRows) row.classList.toggle('current', Number(row.dataset.turn) === x);
  // Scroll the evidence box (not the page) to the turn's first row, just under the sticky header.
  const first = evidenceRows.find((row) => row.classList.contains('current'));
  const box = field('evidence-scroll');
  if (first) box.scrollTop = first.offsetTop - box.querySelector('thead').offsetHeight;
  const turn = turns[x - 1];
  const text = turn?.text.replace(/\s+/g, ' ') ?? '';
  const said = turn ? `${turn.role}: ${text.length > 120 ? `${text.slice(0, 120)}…` : text}` : 'before the dialogue';
  field('turn-value').textContent = `${x} — ${said}`;
}

const OBSERVATION_CLASS = { correct: 'pill good', incorrect: 'pill bad', taught: 'pill' };

function swatch(i) {
  const s = el('span', undefined, 'swatch');
  s.style.background = colorOf(i);
  s.setAttribute('aria-hidden', 'true');
  return s;
}

function kcCell(kc, i) {
  const td = el('td');
  td.append(swatch(i), document.createTextNode(shortLabel(kc)));
  td.title = kc.id;
  return td;
}

function fillTables(res) {
  const all = res.kcs.flatMap((kc, i) => kc.evidence.map((ev) => ({ ev, kc, i })));
  all.sort((a, b) => a.ev.turn - b.ev.turn || a.i - b.i);
  const evidence = field('evidence').tBodies[0];
  evidence.replaceChildren();
  evidenceRows = all.map(({ ev, kc, i }) => {
    const tr = el('tr');
    tr.dataset.turn = String(ev.turn + 1);
    const matched = ev.via === 'semantic' ? `semantic, cos ${fmt(ev.matched, 2)}` : `named ${[].concat(ev.matched).join(', ')}`;
    const obs = el('td');
    obs.append(el('span', ev.observation, OBSERVATION_CLASS[ev.observation]));
    tr.append(
      el('td', String(ev.turn + 1), 'num'),
      el('td', ev.role),
      kcCell(kc, i),
      obs,
      el('td', matched),
      el('td', fmt(ev.strength, 2), 'num'),
      el('td', `${fmt(ev.p_before)} → ${fmt(ev.p_after)}`, 'num'),
    );
    return tr;
  });
  if (evidenceRows.length === 0) {
    const tr = el('tr');
    const td = el('td', 'No turn named or used any KC: every p(known) stayed at its start.', 'note');
    td.colSpan = 7;
    tr.append(td);
    evidence.append(tr);
  } else evidence.append(...evidenceRows);

  const final = field('final').tBodies[0];
  final.replaceChildren(
    ...res.kcs.map((kc, i) => {
      const tr = el('tr');
      tr.dataset.kc = kc.id;
      tr.dataset.status = kc.status;
      const st = el('td');
      st.append(el('span', kc.status, kc.status === 'known' ? 'pill good' : 'pill'));
      tr.append(kcCell(kc, i), el('td', kc.text), st, el('td', fmt(kc.p_before), 'num'), el('td', fmt(kc.p_after), 'num'));
      return tr;
    }),
  );
}

function showResult(request, res) {
  turns = request.context;
  field('result').hidden = false; // laid out before the chart measures its width
  const p = res.params;
  field('result-info').textContent =
    `${res.kcs.length} KCs over ${res.turns_total} turns; known: ${res.known.length}. ` +
    `BKT prior ${p.prior}, learn ${p.learn}, guess ${p.guess}, slip ${p.slip}, forget ${p.forget}; the dashed line is the threshold ${res.threshold}. ` +
    'A student turn that uses or names a KC is a correct observation, one confused about it an incorrect one; a tutor turn naming it is taught (the transition alone).';
  fillTables(res);
  drawChart(res);
  slider.max = String(res.turns_total);
  slider.value = String(res.turns_total);
  highlight(res.turns_total);
}

slider.addEventListener('input', () => {
  const x = Number(slider.value);
  if (chart) chart.setCursor({ left: chart.valToPos(x, 'x'), top: chart.valToPos(0.5, 'y') });
  highlight(x);
});

addEventListener('resize', () => {
  if (chart) chart.setSize({ width: chartWidth(field('trace-chart')), height: HEIGHT });
});

wireApiForm({
  form,
  submit,
  status,
  errorBox,
  read: readForm,
  path: '/trace-knowledge',
  busy: 'Tracing…',
  show(request, res) {
    showResult(request, res);
    return `${res.known.length} of ${res.kcs.length} KCs known after ${res.turns_total} turns.`;
  },
  example: 'TraceKnowledgeRequest',
  fill: fillForm,
  firstField: 'task-dependencies',
  fieldOfPath,
});
