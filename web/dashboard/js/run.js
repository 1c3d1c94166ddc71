// One run, step by step, followed live: GET /runs/:id every second, and GET /runs/:id/history only for
// what is new (the route pages with offset/limit), so following a run costs one small request a second
// plus one per batch of newly finalized steps.
import { ApiError, api, download } from './api.js';
import { AXES, AXIS_COLOR } from './axes.js';
import { pointsOnly, stepChart, stepped, verticalMarkers } from './charts.js';
import { clearError, el, fmt, mountShell, showError } from './shell.js';

const POLL_MS = 1000;
// With each batch of new steps the last few known rows are read again: plans that arrive late for a
// finalized step raise its late_plans without finalizing anything, and mostly concern the latest steps.
const REREAD = 5;
// The history route's largest page (limit ≤ 10 000): the first load and the downloads use it.
const PAGE = 10_000;
const LATEST_ROWS = 10;
const REFRESH_ROWS = 20;

const runId = new URLSearchParams(location.search).get('id');
const path = `/runs/${encodeURIComponent(runId ?? '')}`;
const $ = (id) => document.getElementById(id);
const errorBox = $('error');

const state = {
  run: null,
  runJson: '',
  rows: [],
  charts: {},
  gateKey: null,
  gateShares: [],
  gamingShares: [],
  timer: null,
  busy: false,
  following: true,
  failures: 0,
};

const pct = (x) => (x === null || x === undefined ? '–' : `${(100 * x).toFixed(1)} %`);
const time = (iso) => new Date(iso).toLocaleTimeString();

/** The axis a refresh favoured: the lowest EMA against ρ (the largest ρ − EMA), as refreshWeights has it. */
function lagging(ema, rho) {
  return AXES.reduce((lag, k) => (rho - ema[k] > rho - ema[lag] ? k : lag), AXES[0]);
}

// ---- data ----------------------------------------------------------------------------------------

async function historyFrom(offset) {
  const rows = [];
  for (;;) {
    const page = await api(`${path}/history?offset=${offset + rows.length}&limit=${PAGE}`);
    rows.push(...page.rows);
    if (page.rows.length === 0 || offset + rows.length >= page.total) return rows;
  }
}

async function sync() {
  const run = await api(path);
  const have = state.rows.length;
  let changed = false;
  if (run.finalized_steps !== have) {
    // Fewer steps than drawn: the run was deleted and started again under its id; read it all again.
    const from = run.finalized_steps < have ? 0 : Math.max(0, have - REREAD);
    const rows = await historyFrom(from);
    state.rows = state.rows.slice(0, from).concat(rows);
    changed = true;
  }
  const runJson = JSON.stringify(run);
  if (runJson !== state.runJson) changed = true;
  state.run = run;
  state.runJson = runJson;
  if (changed) render();
  $('updated').textContent = `Run updated ${time(run.updated_at)} · checked ${new Date().toLocaleTimeString()}${state.following ? ' (every 1 s)' : ''}`;
}

// ---- polling -------------------------------------------------------------------------------------

function schedule(delay) {
  clearTimeout(state.timer);
  state.timer = null;
  if (state.following && !document.hidden) state.timer = setTimeout(tick, delay);
}

async function tick() {
  state.timer = null;
  if (state.busy) return; // the request in flight schedules the next one
  state.busy = true;
  try {
    await sync();
    state.failures = 0;
    clearError(errorBox);
  } catch (err) {
    state.failures += 1;
    showFailure(err);
  } finally {
    state.busy = false;
  }
  // After a failure (no key, rate limit, service down) back off: 2 s, 4 s, … up to 30 s.
  schedule(state.failures === 0 ? POLL_MS : Math.min(30_000, POLL_MS * 2 ** state.failures));
}

/** Says why the run is not shown, in the summary too: "loading…" must not stay up after a failed read. */
function showFailure(err) {
  if (err instanceof ApiError && err.status === 404 && state.run === null) {
    $('summary').textContent = 'no such run';
    showError(
      errorBox,
      new Error(`No run "${runId}" on this service: it appears once a trainer scores into it or PUT /runs/${runId} creates it. This page keeps checking.`),
    );
    return;
  }
  if (state.run === null) $('summary').textContent = 'not loaded';
  showError(errorBox, err);
}

/** Polls now (a new key, the tab shown again, live updates resumed), in place of the one scheduled. */
function pollNow() {
  clearTimeout(state.timer);
  tick();
}

// A hidden tab stops polling; it catches up at once when shown again.
document.addEventListener('visibilitychange', () => {
  if (document.hidden) schedule(0);
  else pollNow();
});

$('follow').addEventListener('click', (e) => {
  state.following = !state.following;
  e.currentTarget.setAttribute('aria-pressed', String(state.following));
  e.currentTarget.textContent = state.following ? 'Pause live updates' : 'Resume live updates';
  if (state.following) pollNow();
  else schedule(0);
});

for (const [button, format] of [
  ['download-csv', 'csv'],
  ['download-json', 'json'],
]) {
  $(button).addEventListener('click', async () => {
    try {
      await download(`${path}/history?format=${format}&limit=${PAGE}`, `${runId}-history.${format}`);
    } catch (err) {
      showError(errorBox, err);
    }
  });
}

// ---- charts --------------------------------------------------------------------------------------

const plotOf = (id) => $(id).querySelector('.plot');
// The weight bounds w_min and w_max: grey, below the axes' colours.
const BOUND_COLOR = '#8a93a3';
const axisSeries = (suffix, extra = {}) => AXES.map((k) => ({ label: `${k} ${suffix}`, stroke: AXIS_COLOR[k], width: 2, ...extra }));

function createCharts() {
  state.charts.reward = stepChart(plotOf('chart-reward'), {
    yLabel: 'raw axis value (0–1)',
    yRange: () => [0, 1],
    series: [...axisSeries('mean', { width: 1.5 }), ...axisSeries('EMA', { dash: [6, 4] })],
  });
  state.charts.weights = stepChart(plotOf('chart-weights'), {
    yLabel: 'weight (sum = 1)',
    yRange: (_u, _min, max) => [0, Math.min(1, (max ?? 0.5) + 0.1)],
    series: [
      ...axisSeries('weight', { paths: stepped() }),
      ...['w_max', 'w_min'].map((bound) => ({
        label: bound,
        stroke: BOUND_COLOR,
        dash: [3, 4],
        width: 1.5,
        points: { show: false },
        value: () => fmt(state.run.config[bound], 2),
      })),
      {
        label: 'refresh',
        stroke: '#1d2430',
        paths: pointsOnly,
        points: { show: true, size: 9, width: 2, fill: '#ffffff' },
        // The legend says why, at a refresh step under the cursor.
        value: (_u, v, _si, i) => {
          const r = i === null || v === null ? null : state.rows[i];
          if (!r?.refreshed) return '–';
          const lag = lagging(r.ema, state.run.config.rho);
          return `${lag} lags (EMA ${fmt(r.ema[lag])} vs ρ ${fmt(state.run.config.rho, 2)}) → ${fmt(r.weights_after[lag])}`;
        },
      },
    ],
    hooks: verticalMarkers(() => state.rows.filter((r) => r.refreshed).map((r) => ({ x: r.step, color: AXIS_COLOR[lagging(r.ema, state.run.config.rho)] }))),
  });
  state.charts.gaming = stepChart(plotOf('chart-gaming'), {
    yLabel: 'share of plans',
    yRange: stackRange,
    series: [
      ...bandSeries(
        GAMING_SIGNALS,
        (code) => SIGNAL_COLOR[code],
        () => state.gamingShares,
      ),
      { label: 'any signal', stroke: '#1d2430', width: 2, dash: [6, 4], value: (_u, v) => pct(v) },
    ],
  });
  state.charts.aboutness = stepChart(plotOf('chart-aboutness'), {
    yLabel: 'aboutness (0–1)',
    yRange: () => [0, 1],
    series: [{ label: 'aboutness (mean of parsed plans)', stroke: ABOUTNESS_COLOR, width: 2 }],
  });
  state.charts.plans = stepChart(plotOf('chart-plans'), {
    yLabel: 'plans per step',
    digits: 0,
    yRange: (_u, _min, max) => [0, Math.max(1, Math.ceil((max ?? 1) * 1.15))],
    series: [
      { label: 'plans', stroke: '#2457c5', fill: 'rgba(36, 87, 197, 0.12)', width: 2 },
      { label: 'late plans', stroke: '#b3261e', width: 2 },
    ],
  });
  state.charts.diversity = stepChart(plotOf('chart-diversity'), {
    yLabel: 'structural distance',
    yRange: (_u, _min, max) => [0, max === null || max <= 0 ? 1 : Math.max(0.1, max * 1.15)],
    series: [{ label: 'diversity (group mean)', stroke: '#6b3fa0', width: 2 }],
  });
}

// The gaming signal codes (src/contracts/gaming.ts) and their colours (Okabe–Ito, told apart at a glance).
const SIGNAL_COLOR = {
  bare_keywords: '#e69f00',
  keyword_stuffing: '#d55e00',
  duplicate_steps: '#0072b2',
  off_topic: '#009e73',
  cue_only_phase: '#cc79a7',
  degenerate_structure: '#56b4e9',
};
const GAMING_SIGNALS = Object.keys(SIGNAL_COLOR);
const ABOUTNESS_COLOR = '#00798c';

/** A count as a share of the step's plans; null (a step finalized before it was counted) stays a gap. */
const shareOf = (n, plans) => (n === null || n === undefined ? null : plans === 0 ? 0 : n / plans);

// Colours for gate reasons (violation codes that gate), one per code, told apart at a glance; others cycle.
const REASON_COLOR = {
  parse_error: '#e69f00',
  schema_invalid: '#cc79a7',
  plan_too_large: '#8c6d31',
  duplicate_id: '#6b3fa0',
  unknown_agent: '#56b4e9',
  cycle: '#0072b2',
  tool_not_in_palette: '#009e73',
  tool_not_in_agent_tools: '#d55e00',
};
const KNOWN_REASONS = Object.keys(REASON_COLOR);
const OTHER_COLORS = ['#999999', '#444444', '#b8860b', '#2f4f4f'];
const reasonColor = (reason, i) => REASON_COLOR[reason] ?? OTHER_COLORS[i % OTHER_COLORS.length];
// Opaque tints (the stacked bands overlap: each is filled down to 0, the lower ones drawn over it).
const tint = (hex) => {
  const mix = (i) => Math.round(0.45 * Number.parseInt(hex.slice(i, i + 2), 16) + 0.55 * 255);
  return `rgb(${mix(1)}, ${mix(3)}, ${mix(5)})`;
};

// Stacked bands of shares, as the gate reasons and the gaming signals are drawn: a plan can count under
// several codes, so the stack can rise above the "any" line. Overlapping lines would hide each other; bands
// of equal shares lie side by side.

/** Cumulative shares, bottom (first code) to top; a null share (a step from before the counts) stays a gap. */
const cumulate = (shares) => shares.map((_, j) => shares[0].map((first, i) => (first === null ? null : shares.slice(0, j + 1).reduce((s, a) => s + a[i], 0))));

/**
 * The bands' series, top first: each filled down to 0 and the lower ones drawn over it, so every band shows
 * its own share; the legend gives each code's own share (`shares()` at draw time), not the stacked height.
 */
const bandSeries = (codes, colorOf, shares) =>
  codes
    .map((k, j) => ({
      label: k,
      stroke: colorOf(k, j),
      fill: tint(colorOf(k, j)),
      width: 1,
      value: (_u, _v, _si, i) => (i === null ? '–' : pct(shares()[j]?.[i])),
    }))
    .reverse();

const stackRange = (_u, _min, max) => [0, Math.max(0.1, Math.min(1.5, (max ?? 0) * 1.15))];

/**
 * Gated plans per step, stacked by reason when the rows carry gate_reasons (rows finalized before the
 * service counted reasons have none: gaps, not zeros); a plan gated for two reasons counts under each, so
 * the stack can rise above the gated line. With no reasons at all, the gated fraction alone.
 */
function gateChart(rows) {
  const reasons = [...new Set(rows.flatMap((r) => (r.gate_reasons ? Object.keys(r.gate_reasons) : [])))].sort(
    (a, b) => (KNOWN_REASONS.indexOf(a) + 1 || 99) - (KNOWN_REASONS.indexOf(b) + 1 || 99) || a.localeCompare(b),
  );
  const xs = rows.map((r) => r.step);
  const gated = rows.map((r) => r.gated_fraction);
  const shares = reasons.map((k) => rows.map((r) => (r.gate_reasons ? (r.plans === 0 ? 0 : (r.gate_reasons[k] ?? 0) / r.plans) : null)));
  const key = reasons.join(',');
  const caption = reasons.length
    ? 'Stacked: the share of the step’s plans gated for each reason (a plan gated for two reasons counts under each); dashed: the share gated for any reason. Gaps: steps finalized before reasons were recorded.'
    : 'The share of the step’s plans that failed the hard gate (no per-reason counts recorded for these steps).';
  if (key !== state.gateKey) {
    state.charts.gates?.destroy();
    state.charts.gates = stepChart(plotOf('chart-gates'), {
      yLabel: 'share of plans',
      yRange: stackRange,
      series: [
        ...bandSeries(reasons, reasonColor, () => state.gateShares),
        { label: 'gated (any reason)', stroke: '#1d2430', width: 2, ...(reasons.length ? { dash: [6, 4] } : {}), value: (_u, v) => pct(v) },
      ],
    });
    state.gateKey = key;
    $('chart-gates-caption').textContent = caption;
  }
  state.gateShares = shares;
  state.charts.gates.update([xs, ...cumulate(shares).reverse(), gated]);
}

function drawCharts() {
  const rows = state.rows;
  const xs = rows.map((r) => r.step);
  const rho = state.run.config.rho;
  state.charts.reward.update([xs, ...AXES.map((k) => rows.map((r) => r.mean[k])), ...AXES.map((k) => rows.map((r) => r.ema[k]))]);
  state.charts.weights.update([
    xs,
    ...AXES.map((k) => rows.map((r) => r.weights[k])),
    rows.map(() => state.run.config.w_max),
    rows.map(() => state.run.config.w_min),
    rows.map((r) => (r.refreshed ? r.weights_after[lagging(r.ema, rho)] : null)),
  ]);
  gateChart(rows);
  state.gamingShares = GAMING_SIGNALS.map((code) => rows.map((r) => shareOf(r.gaming && (r.gaming[code] ?? 0), r.plans)));
  state.charts.gaming.update([xs, ...cumulate(state.gamingShares).reverse(), rows.map((r) => shareOf(r.flagged, r.plans))]);
  // `aboutness` is new: absent on older services and rows, which is a gap like null.
  state.charts.aboutness.update([xs, rows.map((r) => r.aboutness ?? null)]);
  state.charts.plans.update([xs, rows.map((r) => r.plans), rows.map((r) => r.late_plans)]);
  // `diversity` is new: absent on older services and rows, which is a gap like null.
  state.charts.diversity.update([xs, rows.map((r) => r.diversity ?? null)]);
  $('charts').dataset.steps = String(rows.length);
}

// ---- tables --------------------------------------------------------------------------------------

function row(cells, { header = false, numeric = [] } = {}) {
  const tr = el('tr');
  cells.forEach((c, i) => {
    const cell = el(header ? 'th' : 'td', undefined, numeric.includes(i) ? 'num' : undefined);
    if (c instanceof Node) cell.append(c);
    else cell.textContent = c;
    if (header) cell.scope = 'col';
    tr.append(cell);
  });
  return tr;
}

const axisName = (k) => {
  const span = el('span', k, 'axis-name');
  span.style.borderLeft = `0.8em solid ${AXIS_COLOR[k]}`;
  return span;
};

function weightsTable(run) {
  const rho = run.config.rho;
  const lag = run.ema ? lagging(run.ema, rho) : null;
  const table = $('weights');
  table.replaceChildren(row(['Axis', 'Weight (next step)', 'EMA', 'EMA − ρ', ''], { header: true, numeric: [1, 2, 3] }));
  for (const k of AXES) {
    const gap = run.ema ? run.ema[k] - rho : null;
    table.append(
      row(
        [
          axisName(k),
          fmt(run.weights[k]),
          fmt(run.ema?.[k]),
          gap === null ? '–' : `${gap >= 0 ? '+' : ''}${gap.toFixed(3)}`,
          k === lag ? 'lowest against ρ' : '',
        ],
        {
          numeric: [1, 2, 3],
        },
      ),
    );
  }
  $('bounds').textContent =
    `Each refresh keeps every weight within [w_min, w_max] = [${fmt(run.config.w_min, 2)}, ${fmt(run.config.w_max, 2)}], the weights summing to 1.`;
  const open = run.open_step;
  $('open-step').textContent = open
    ? `Step ${open.step} is open: ${open.plans} plans in ${open.requests} ${open.requests === 1 ? 'request' : 'requests'}, ${open.gated} gated (${pct(open.plans ? open.gated / open.plans : null)}).`
    : 'No step is open.';
}

const CONFIG_LABELS = {
  alpha: 'α (EMA rate)',
  t_warm: 'T_warm (first refresh after step)',
  t_refresh: 'T_refresh (steps between refreshes)',
  rho: 'ρ (target EMA)',
  eta_w: 'η_w (weight step)',
  w_min: 'w_min',
  w_max: 'w_max',
  w0: 'w0 (initial weights struct / pers / ped)',
  lambda_hard: 'λ_hard (gate penalty)',
  reward_profile: 'reward profile',
  epsilon: 'ε',
  tau: 'τ',
  ddof: 'ddof',
  samples_per_step: 'samples per step (step-less trainers)',
};

function configTable(config) {
  const table = $('config');
  table.replaceChildren(row(['Setting', 'Value'], { header: true, numeric: [1] }));
  for (const [k, v] of Object.entries(config)) {
    const value = k === 'w0' ? AXES.map((a) => fmt(v[a])).join(' / ') : v === null ? 'none' : String(v);
    table.append(row([CONFIG_LABELS[k] ?? k, value], { numeric: [1] }));
  }
}

function refreshesTable(rows, config) {
  const table = $('refreshes');
  const refreshes = rows.filter((r) => r.refreshed).reverse();
  if (refreshes.length === 0) {
    table.replaceChildren(
      row([`No refresh yet: the weights first refresh after step ${config.t_warm} (T_warm), then every ${config.t_refresh} steps (T_refresh).`]),
    );
    return;
  }
  const w = (v) => AXES.map((k) => fmt(v[k])).join(' / ');
  table.replaceChildren(
    row(['After step', 'EMA struct', 'EMA pers', 'EMA ped', 'Lagging axis (lowest EMA against ρ)', 'Weights before (struct / pers / ped)', 'Weights after'], {
      header: true,
      numeric: [0, 1, 2, 3],
    }),
  );
  for (const r of refreshes.slice(0, REFRESH_ROWS)) {
    const lag = lagging(r.ema, config.rho);
    const reason = el('span');
    reason.append(axisName(lag), ` ${fmt(r.ema[lag])} vs ρ ${fmt(config.rho, 2)}`);
    table.append(
      row([String(r.step), fmt(r.ema.struct), fmt(r.ema.pers), fmt(r.ema.ped), reason, w(r.weights), w(r.weights_after)], { numeric: [0, 1, 2, 3] }),
    );
  }
  if (refreshes.length > REFRESH_ROWS) table.append(row([`… ${refreshes.length - REFRESH_ROWS} earlier refreshes (see the CSV)`]));
}

function stepsTable(rows) {
  const table = $('steps');
  table.replaceChildren(
    row(
      [
        'Step',
        'Plans',
        'Late',
        'Gated',
        'Flagged',
        'Aboutness',
        'Mean struct',
        'Mean pers',
        'Mean ped',
        'Weights (struct / pers / ped)',
        'Diversity',
        'Finalized',
      ],
      {
        header: true,
        numeric: [0, 1, 2, 3, 4, 5, 6, 7, 8, 10],
      },
    ),
  );
  for (const r of rows.slice(-LATEST_ROWS).reverse()) {
    table.append(
      row(
        [
          String(r.step),
          String(r.plans),
          String(r.late_plans),
          pct(r.gated_fraction),
          pct(shareOf(r.flagged, r.plans)),
          fmt(r.aboutness),
          fmt(r.mean.struct),
          fmt(r.mean.pers),
          fmt(r.mean.ped),
          AXES.map((k) => fmt(r.weights[k])).join(' / '),
          fmt(r.diversity),
          time(r.finalized_at),
        ],
        { numeric: [0, 1, 2, 3, 4, 5, 6, 7, 8, 10] },
      ),
    );
  }
  if (rows.length === 0) table.append(row(['No finalized step yet.']));
}

function render() {
  const { run, rows } = state;
  if (!state.charts.reward) createCharts();
  $('summary').textContent = `${run.finalized_steps} finalized steps${run.last_finalized_step === null ? '' : `, last ${run.last_finalized_step}`}`;
  const note = $('download-note');
  note.hidden = run.finalized_steps <= PAGE;
  note.textContent = `Downloads hold the first ${PAGE.toLocaleString()} steps (the history route's page; use offset for the rest).`;
  weightsTable(run);
  const configJson = JSON.stringify(run.config);
  if (configJson !== state.configJson) configTable(run.config);
  state.configJson = configJson;
  refreshesTable(rows, run.config);
  stepsTable(rows);
  drawCharts();
}

// ---- start ---------------------------------------------------------------------------------------

mountShell('run.html', pollNow);
if (runId) {
  $('title').textContent = `Run ${runId}`;
  document.title = `Run ${runId} · Tutor reward service`;
  tick();
} else {
  showError(errorBox, new Error('No run given: open a run from the runs list (run.html?id=…)'));
  for (const b of document.querySelectorAll('.toolbar button')) b.disabled = true;
}
