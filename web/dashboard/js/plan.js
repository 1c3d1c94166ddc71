// Plan page: paste a plan, POST /validate-plan, draw its dependency graph, rewards and violations.
import { api } from './api.js';
import { buildModel, describeStep, legend, renderGraph } from './plan-graph.js';
import { renderGate, renderRewards, renderViolations } from './plan-results.js';
import { readPlan } from './plan-source.js';
import { clearError, el, mountShell, showError } from './shell.js';

const $ = (id) => document.getElementById(id);
const form = $('plan-form');
const planText = $('plan-text');
const profileText = $('profile');
const errorBox = $('error');
const status = $('status');

mountShell('plan.html', () => {
  if (!$('result').hidden) form.requestSubmit();
});

let current = null; // { model } of the plan on screen

/** Free text, or the JSON list / object it spells; undefined when empty. */
function profileValue() {
  const text = profileText.value.trim();
  if (!text) return undefined;
  if (text.startsWith('{') || text.startsWith('[')) {
    try {
      return JSON.parse(text);
    } catch {
      // not JSON: free text
    }
  }
  return text;
}

// The examples are the OpenAPI document's, fetched when first asked for (the document is ~300 kB).
let examples;
async function loadExamples() {
  if (!examples) {
    const doc = await api('/docs/json');
    const schemas = doc.components?.schemas ?? {};
    const validate = schemas.ValidatePlanRequest?.examples?.[0];
    const group = schemas.ScorePlanRequest?.examples?.[0]?.groups?.[0];
    examples = { validate, group };
  }
  return examples;
}

/** Bare JSON is shown indented (the same plan); fenced or broken text as it is. */
function readable(completion) {
  if (typeof completion !== 'string') return JSON.stringify(completion, null, 2);
  const t = completion.trim();
  if (t.startsWith('{')) {
    try {
      return JSON.stringify(JSON.parse(t), null, 2);
    } catch {
      // not valid JSON: keep it as written
    }
  }
  return completion;
}

$('load-example').addEventListener('click', async () => {
  clearError(errorBox);
  const which = $('example').value;
  try {
    const { validate, group } = await loadExamples();
    let plan;
    let profile;
    if (which === 'validate') {
      plan = validate?.plan;
      profile = validate?.profile;
    } else {
      plan = group?.completions?.[Number(which.split(':')[1])];
      profile = group?.profile;
    }
    if (plan === undefined) throw new Error('The OpenAPI document (/docs/json) has no such example.');
    planText.value = readable(plan);
    profileText.value = profile === undefined ? '' : typeof profile === 'string' ? profile : JSON.stringify(profile, null, 2);
    status.textContent = `Loaded ${$('example').selectedOptions[0].textContent.trim()} from /docs/json (${planText.value.length.toLocaleString()} characters).`;
    planText.focus();
  } catch (err) {
    showError(errorBox, err);
  }
});

form.addEventListener('submit', async (e) => {
  e.preventDefault();
  clearError(errorBox);
  const body = { plan: planText.value };
  const profile = profileValue();
  if (profile !== undefined) body.profile = profile;
  if ($('strict').checked) body.options = { strict: true };
  const button = $('validate');
  button.disabled = true;
  status.textContent = 'Validating…';
  try {
    const res = await api('/validate-plan', { method: 'POST', body });
    show(res);
    status.textContent = '';
  } catch (err) {
    status.textContent = '';
    showError(errorBox, err);
  } finally {
    button.disabled = false;
  }
});

function show(res) {
  const result = $('result');
  result.hidden = false;
  renderGate($('gate'), res);
  renderRewards($('rewards-body'), res);
  renderViolations($('violations-body'), res);
  const section = $('graph-section');
  current = null;
  $('graph').replaceChildren();
  if (!res.parsed) {
    section.hidden = true;
    return;
  }
  // The plan as the service read it (after its normalizations): the graph shows what the rewards judged.
  const plan = readPlan(res.plan);
  section.hidden = false;
  current = { model: buildModel(plan, res) };
  draw();
}

function draw() {
  if (!current) return;
  const { model } = current;
  const by = document.querySelector('input[name="colour-by"]:checked').value;
  const items = legend(model, by);
  $('legend').replaceChildren(
    ...items.map((it) => {
      const li = el('li');
      const sw = el('span', undefined, `swatch ${it.kind}`);
      sw.setAttribute('aria-hidden', 'true');
      if (it.kind === 'node' || it.kind === 'missing') sw.style.cssText = `background:${it.fill};border-color:${it.stroke}`;
      else sw.style.borderColor = it.stroke;
      li.append(sw, it.label);
      return li;
    }),
  );
  const detail = $('node-detail');
  detail.textContent = 'Tab to a step (or click it) to read it in full.';
  const panel = $('graph-section');
  renderGraph($('graph'), model, {
    by,
    direction: $('direction').value,
    fitWidth: Math.max(320, $('result').clientWidth - 40),
    onSelect: (sel) => {
      detail.replaceChildren();
      if (sel.missing !== undefined) {
        detail.append(el('strong', `missing: ${sel.missing}`), ` — ${sel.label}.`);
        return;
      }
      const s = sel.step;
      const ph = model.phases.get(s.id);
      detail.append(el('strong', s.id), ` ${describeStep(model, s).replace(/^Step [^,]*, /, '')}`);
      if (ph?.activation_without_human_input) detail.append(el('span', ' (an activation cue without human_input: true, not counted)', 'note'));
    },
  });
  const notes = [];
  if (model.cycles.length)
    notes.push(`Cycles named by the service: ${model.cycles.map((c) => c.join(' → ')).join('; ')}. Every edge inside their components is marked.`);
  for (const loop of model.loops) {
    const bound = Number.isInteger(loop.max_iterations) && loop.max_iterations > 0 ? `at most ${loop.max_iterations} iterations` : 'no bound (unbounded_loop)';
    notes.push(`Loop ${loop.id}: ${loop.nodes.join(', ') || 'no steps'}, ${bound}${loop.exit_condition ? `, exits when ${loop.exit_condition}` : ''}.`);
  }
  if (model.missing.size) notes.push(`Missing steps named in depends_on: ${[...model.missing.values()].join(', ')}.`);
  $('graph-note').textContent = notes.join(' ');
  panel.dataset.colourBy = by;
}

for (const r of document.querySelectorAll('input[name="colour-by"]')) r.addEventListener('change', draw);
$('direction').addEventListener('change', draw);
