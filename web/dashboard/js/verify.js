// The verifier playground: a task, the dialogue so far and candidate tutor turns go to POST /verify-turn;
// the candidates come back ranked, each with its score and the features the model weighed.
import { blocks, FieldError, formatDialogue, lines, parseDialogue, wireApiForm } from './forms.js';
import { el, fmt, mountShell } from './shell.js';

const form = document.getElementById('verify-form');
const errorBox = document.getElementById('error');
const status = document.getElementById('status');
const submit = document.getElementById('submit');
const field = (id) => document.getElementById(id);

// A new key is used by the next request: no reload, so what was typed stays.
mountShell('verify.html', () => {
  status.textContent = 'Key saved: the next request sends it.';
});

/** The request the form describes; FieldError for what cannot be sent. */
function readForm() {
  const description = field('task-description').value.trim();
  if (!description) throw new FieldError('task-description', 'describe the task');
  const task = { description };
  const dependencies = lines(field('task-dependencies').value);
  const steps = lines(field('task-steps').value);
  if (dependencies.length) task.dependencies = dependencies;
  if (steps.length) task.solution_steps = steps;
  const reference = field('task-reference').value.trim();
  if (reference) task.reference_code = reference;
  const candidates = blocks(field('candidates').value);
  if (candidates.length === 0) throw new FieldError('candidates', 'give at least one candidate');
  return { task, context: parseDialogue(field('dialogue').value), candidates };
}

function fillForm(request) {
  field('task-description').value = request.task?.description ?? '';
  field('task-dependencies').value = (request.task?.dependencies ?? []).join('\n');
  field('task-steps').value = (request.task?.solution_steps ?? []).join('\n');
  field('task-reference').value = request.task?.reference_code ?? '';
  field('dialogue').value = formatDialogue(request.context ?? []);
  field('candidates').value = (request.candidates ?? []).join('\n\n');
}

// Which field a 400's JSON path is about.
function fieldOfPath(path) {
  if (path.startsWith('$.task.dependencies')) return 'task-dependencies';
  if (path.startsWith('$.task.solution_steps')) return 'task-steps';
  if (path.startsWith('$.task.reference_code')) return 'task-reference';
  if (path.startsWith('$.task')) return 'task-description';
  if (path.startsWith('$.context')) return 'dialogue';
  if (path.startsWith('$.candidates')) return 'candidates';
  return undefined;
}

const FEATURE_LABELS = {
  asks_question: 'asks a question',
  log_chars: 'length (log scale)',
  question_marks: 'question marks',
  ends_with_question: 'ends with a question',
  addresses_student: 'addresses the student',
  encouragement: 'encourages',
  invites_action: 'invites an action',
  shows_calculation: 'shows a calculation',
  reveals_final_answer: 'reveals the final answer',
  // The default model's predicted qualities (MRBench's labelled dimensions).
  mistake_identification: 'identifies the mistake',
  mistake_location: 'locates the mistake',
  reveals_answer: 'reveals the answer',
  providing_guidance: 'gives guidance',
  actionability: 'actionable',
  coherence: 'coherent',
  encouraging_tone: 'encouraging tone',
  humanlike: 'human-like',
};

/** One labelled bar per feature; a feature that is 0 or 1 for every candidate reads yes / no. */
function featureList(features, scale, className = 'features') {
  const list = el('dl', undefined, className);
  for (const [name, value] of Object.entries(features)) {
    const row = el('div', undefined, 'feature');
    const label = el('dt', FEATURE_LABELS[name] ?? name.replaceAll('_', ' '));
    label.title = `${name} = ${value}`;
    const cell = el('dd');
    const bar = el('span', undefined, 'fbar');
    const fill = el('span');
    fill.style.width = `${Math.max(0, Math.min(1, value / scale[name].max)) * 100}%`;
    bar.append(fill);
    // The length goes to the model as log(1 + chars): the bar shows that, the text the characters.
    const text = name === 'log_chars' ? `${Math.round(Math.expm1(value))} chars` : scale[name].binary ? (value ? 'yes' : 'no') : fmt(value, 2);
    cell.append(bar, el('span', text, 'fval'));
    row.append(label, cell);
    list.append(row);
  }
  return list;
}

const linesText = (lines) => (lines.length === 1 ? `line ${lines[0]}` : `lines ${lines.join(', ')}`);

/** What the service read in a candidate against the task and the student's code: why it ranks where it does, beside its score. */
function findings(c) {
  const pills = [];
  if (c.reveals) pills.push(el('span', `reveals the answer: ${c.reveals.kind.replaceAll('_', ' ')}`, 'pill bad finding'));
  if (c.misdirects) pills.push(el('span', `points at ${linesText(c.misdirects)}, which the fix does not change`, 'pill bad finding'));
  if (c.guides) pills.push(el('span', `points at ${linesText(c.guides)}, where the fix is`, 'pill good finding'));
  return pills;
}

// A probability's bar is its value: on a fixed 0–1 scale, never read as yes / no.
const PROBABILITY = { max: 1, binary: false };

function showResult(request, res) {
  const ranking = field('ranking');
  ranking.replaceChildren();
  const withFeatures = res.candidates.filter((c) => c.features);
  const scale = {};
  for (const c of withFeatures) {
    for (const [name, value] of Object.entries(c.features)) {
      const s = (scale[name] ??= { max: 1, binary: true });
      s.max = Math.max(s.max, Math.abs(value));
      if (value !== 0 && value !== 1) s.binary = false;
    }
  }
  const cut = new Set(res.truncated.candidates);
  res.ranking.forEach((index, r) => {
    const c = res.candidates[index];
    const item = el('li', undefined, r === 0 ? 'candidate best' : 'candidate');
    item.dataset.index = String(index);
    item.dataset.rank = String(r + 1);
    item.dataset.score = String(c.score);
    const head = el('div', undefined, 'cand-head');
    const bar = el('span', undefined, 'score-bar');
    bar.setAttribute('aria-hidden', 'true');
    const fill = el('span');
    fill.style.width = `${c.score * 100}%`;
    bar.append(fill);
    head.append(
      el('span', `#${r + 1}`, 'rank'),
      bar,
      el('span', fmt(c.score), 'score'),
      // The index the API gives the candidate (ranking, best.index): from 0, in the order they were sent.
      el('span', `candidate ${index} · logit ${fmt(c.logit, 2)}`, 'note'),
    );
    if (cut.has(index)) head.append(el('span', 'cut to fit the model input', 'pill bad'));
    head.append(...findings(c));
    const text = el('p', request.candidates[index], 'cand-text');
    item.append(head, text);
    if (c.dimensions) {
      const scale = Object.fromEntries(Object.keys(c.dimensions).map((name) => [name, PROBABILITY]));
      item.append(featureList(c.dimensions, scale, 'features dimensions'));
    }
    if (c.features) item.append(featureList(c.features, scale));
    ranking.append(item);
  });
  const m = res.model;
  const notes = [`${m.name} ${m.version} (${m.kind}) · ${res.candidates.length} candidates scored in ${fmt(res.latency_ms, 0)} ms.`];
  if (res.candidates.some((c) => c.dimensions)) {
    notes.push("First bars: the model's predicted probability of each quality human raters labelled (MRBench's dimensions).");
  }
  if (withFeatures.length) {
    notes.push(
      'Plain bars: the hand features the model weighs beside the sentence embeddings — their values (scaled to the largest), not their share of the score.',
    );
  } else notes.push('This model gives no per-candidate features: the score and its logit are all it explains.');
  if (res.candidates.some((c) => c.reveals || c.misdirects || c.guides)) {
    notes.push('Whatever the scores, a turn aimed at the bug ranks first, one pointing at other lines after the rest, and one that reveals the answer last.');
  }
  if (res.truncated.task) notes.push('The task was cut to fit the model input.');
  if (res.truncated.context) notes.push('Older dialogue was cut to fit the model input.');
  field('result-info').textContent = notes.join(' ');
  field('result').hidden = false;
}

wireApiForm({
  form,
  submit,
  status,
  errorBox,
  read: readForm,
  path: '/verify-turn',
  busy: 'Scoring…',
  show(request, res) {
    showResult(request, res);
    return `Best: candidate ${res.best.index} (${fmt(res.best.score)}).`;
  },
  example: 'VerifyTurnRequest',
  fill: fillForm,
  firstField: 'task-description',
  fieldOfPath,
});
