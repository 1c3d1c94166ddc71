// The runs list: GET /runs a page at a time (cursor paging), each run with its current weights and a gate
// rate. The gate rate costs nothing when the run has an open step with plans (its counters come with the
// run); otherwise it is the last finalized step's, one GET /runs/:id/history?offset=<last>&limit=1 per
// such run (a single row), fetched in parallel.
import { api } from './api.js';
import { AXES, AXIS_COLOR } from './axes.js';
import { clearError, el, fmt, mountShell, showError } from './shell.js';

const LIMIT = 25;
const $ = (id) => document.getElementById(id);
const errorBox = $('error');
const state = { cursor: null, page: 1, next: null };

const pct = (x) => (x === null || x === undefined ? '–' : `${(100 * x).toFixed(1)} %`);

async function gateRate(run) {
  const open = run.open_step;
  if (open && open.plans > 0) return { rate: open.gated / open.plans, from: `open step ${open.step}, so far` };
  if (run.finalized_steps === 0) return { rate: null, from: 'no step yet' };
  const { rows } = await api(`/runs/${encodeURIComponent(run.id)}/history?offset=${run.finalized_steps - 1}&limit=1`);
  const last = rows.at(-1);
  return last ? { rate: last.gated_fraction, from: `step ${last.step}` } : { rate: null, from: '' };
}

function cell(content, cls) {
  const td = el('td', undefined, cls);
  td.append(content);
  return td;
}

function table(runs, rates) {
  const t = el('table');
  const caption = el(
    'caption',
    `Runs ${runs.length === 0 ? '' : `${(state.page - 1) * LIMIT + 1}–${(state.page - 1) * LIMIT + runs.length}`} (page ${state.page})`,
  );
  caption.className = 'visually-hidden';
  const head = el('tr');
  for (const [text, cls] of [['Run', ''], ['Finalized steps', 'num'], ['Last update', ''], ...AXES.map((k) => [`Weight ${k}`, 'num']), ['Gate rate', 'num']]) {
    const th = el('th', undefined, cls || undefined);
    th.scope = 'col';
    if (text.startsWith('Weight ')) {
      const k = text.slice(7);
      const span = el('span', `w ${k}`, 'axis-name');
      span.style.borderLeft = `0.8em solid ${AXIS_COLOR[k]}`;
      th.append(span);
    } else th.textContent = text;
    head.append(th);
  }
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  runs.forEach((run, i) => {
    const tr = el('tr');
    const a = el('a', run.id);
    a.href = `run.html?id=${encodeURIComponent(run.id)}`;
    const th = el('th');
    th.scope = 'row';
    th.className = 'run-id';
    th.append(a);
    const rate = rates[i];
    const gate = el('span', rate.status === 'rejected' ? 'error' : pct(rate.value.rate));
    const from = el('span', rate.status === 'rejected' ? String(rate.reason?.message ?? rate.reason) : rate.value.from, 'muted small');
    const gateCell = cell(gate, 'num');
    gateCell.append(el('br'), from);
    tr.append(
      th,
      cell(String(run.finalized_steps), 'num'),
      cell(el('time', new Date(run.updated_at).toLocaleString())),
      ...AXES.map((k) => cell(fmt(run.weights[k]), 'num')),
      gateCell,
    );
    tr.querySelector('time').dateTime = run.updated_at;
    tbody.append(tr);
  });
  t.append(caption, thead, tbody);
  return t;
}

async function load() {
  const host = $('runs');
  try {
    const { runs, next_cursor } = await api(`/runs?limit=${LIMIT}${state.cursor ? `&cursor=${encodeURIComponent(state.cursor)}` : ''}`);
    const rates = await Promise.allSettled(runs.map(gateRate));
    clearError(errorBox);
    state.next = next_cursor;
    if (runs.length === 0 && state.page === 1)
      host.replaceChildren(el('p', 'No runs yet: a run appears when a trainer scores with a run_id (or with PUT /runs/{id}).', 'note'));
    else host.replaceChildren(table(runs, rates));
    host.dataset.count = String(runs.length);
    $('page-info').textContent =
      `Page ${state.page} · ${runs.length} runs${next_cursor ? ', more on the next page' : ''} · loaded ${new Date().toLocaleTimeString()}`;
  } catch (err) {
    state.next = null;
    host.replaceChildren();
    host.dataset.count = '0';
    $('page-info').textContent = '';
    showError(errorBox, err);
  }
  $('next-page').disabled = state.next === null;
  $('first-page').disabled = state.page === 1;
}

$('next-page').addEventListener('click', () => {
  if (state.next === null) return;
  state.cursor = state.next;
  state.page += 1;
  load();
});
$('first-page').addEventListener('click', () => {
  state.cursor = null;
  state.page = 1;
  load();
});
$('reload').addEventListener('click', () => load());

mountShell('index.html', () => load());
load();
