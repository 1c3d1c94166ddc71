// What the verifier and knowledge-trace pages share: reading a dialogue and lists from textareas, filling
// them from an API example, sending the form, and pointing at the field a problem is in.
import { ApiError, api } from './api.js';
import { clearError, showError } from './shell.js';

/** A problem with what was typed in one field (its element id): shown before anything is sent. */
export class FieldError extends Error {
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}

const ROLE_LINE = /^\s*(tutor|student)\s*:[ \t]?(.*)$/i;
const ROLES = ['tutor', 'student'];

/**
 * The dialogue in `text`: a JSON array of {role, text} (or Coding-Tutor's [{"tutor": …}, {"student": …}]),
 * or lines where `tutor: …` / `student: …` starts a turn and any other line continues the turn above.
 */
export function parseDialogue(text, field = 'dialogue') {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  if (trimmed.startsWith('[')) return parseJsonDialogue(trimmed, field);
  const turns = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const m = ROLE_LINE.exec(line);
    if (m) turns.push({ role: m[1].toLowerCase(), text: m[2] });
    else if (turns.length > 0) turns[turns.length - 1].text += `\n${line}`;
    else if (line.trim() !== '') throw new FieldError(field, `line ${i + 1} starts no turn: begin a turn with "tutor:" or "student:"`);
  });
  return turns.map((t) => ({ role: t.role, text: t.text.trim() }));
}

function parseJsonDialogue(text, field) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new FieldError(field, `not valid JSON (${e.message})`);
  }
  if (!Array.isArray(value)) throw new FieldError(field, 'the JSON must be an array of turns');
  return value.map((turn, i) => {
    if (turn && typeof turn === 'object' && !('role' in turn)) {
      // Coding-Tutor's conversation: one key, the role, per turn.
      const keys = Object.keys(turn);
      if (keys.length === 1 && ROLES.includes(keys[0])) turn = { role: keys[0], text: turn[keys[0]] };
    }
    if (!turn || !ROLES.includes(turn.role) || typeof turn.text !== 'string') {
      throw new FieldError(field, `turn ${i + 1} of the JSON is not {"role": "tutor" | "student", "text": "…"}`);
    }
    return { role: turn.role, text: turn.text };
  });
}

/** The dialogue as `role: text` lines, or as JSON when a turn has a line that would read as a new turn. */
export function formatDialogue(turns) {
  const ambiguous = turns.some((t) => t.text !== t.text.trim() || t.text.split('\n').some((line) => ROLE_LINE.test(line)));
  if (ambiguous) return JSON.stringify(turns, null, 1);
  return turns.map((t) => `${t.role}: ${t.text}`).join('\n');
}

/** Non-empty lines, trimmed. */
export const lines = (text) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

/** Blocks separated by one or more blank lines, trimmed. */
export const blocks = (text) =>
  text
    .split(/\r?\n[ \t]*\r?\n/)
    .map((b) => b.trim())
    .filter(Boolean);

let docs;

/** The first example of a request schema in the service's own OpenAPI document (so it stays in sync). */
async function openApiExample(schema) {
  docs ??= api('/docs/json').catch((e) => {
    docs = undefined;
    throw e;
  });
  const example = (await docs).components?.schemas?.[schema]?.examples?.[0];
  if (!example) throw new Error(`The API document has no example of ${schema}.`);
  return structuredClone(example);
}

/** Ctrl+Enter (⌘+Enter) in a textarea submits the form; Enter alone keeps adding lines. */
function submitOnCtrlEnter(form) {
  form.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && e.target instanceof HTMLTextAreaElement) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
}

function clearInvalid(form) {
  for (const node of form.querySelectorAll('[aria-invalid]')) node.removeAttribute('aria-invalid');
}

/**
 * Marks the field a problem is about and says which in the error box: a FieldError names it, a 400's
 * issues name a JSON path (`$.candidates[1]`) that `fieldOfPath` maps to an element id.
 */
function pointAtField(errorEl, err, fieldOfPath) {
  let id = err instanceof FieldError ? err.field : undefined;
  if (err instanceof ApiError && err.status === 400) {
    // The first field the answer names; a message without `issues` may still carry a path.
    const path = err.issues[0]?.path ?? /\$(?:\.[A-Za-z_]\w*|\[\d+\])*/.exec(err.message)?.[0];
    if (path) id = fieldOfPath(path);
  }
  const field = id ? document.getElementById(id) : null;
  if (!field) {
    // An error about no field (a 403, the service down): bring it to where the user is looking.
    errorEl.scrollIntoView({ block: 'nearest' });
    return;
  }
  field.setAttribute('aria-invalid', 'true');
  const label = document.querySelector(`label[for="${id}"]`)?.textContent ?? id;
  if (err instanceof FieldError) errorEl.textContent = `${label}: ${err.message}.`;
  else errorEl.textContent += ` (field: ${label})`;
  field.focus();
}

/**
 * The flow the form pages share: on submit, read the form (a FieldError names what cannot be sent), call
 * the API and show the answer, or say what went wrong and mark the field at fault; "Load example" fills
 * the form from the request schema's OpenAPI example. Ctrl+Enter submits.
 */
export function wireApiForm({ form, submit, status, errorBox, read, path, busy, show, example, fill, firstField, fieldOfPath }) {
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearError(errorBox);
    clearInvalid(form);
    let request;
    try {
      request = read();
    } catch (err) {
      showError(errorBox, err);
      pointAtField(errorBox, err, fieldOfPath);
      return;
    }
    submit.disabled = true;
    status.textContent = busy;
    try {
      status.textContent = show(request, await api(path, { method: 'POST', body: request }));
    } catch (err) {
      status.textContent = '';
      showError(errorBox, err);
      pointAtField(errorBox, err, fieldOfPath);
    } finally {
      submit.disabled = false;
    }
  });
  document.getElementById('load-example').addEventListener('click', async () => {
    clearError(errorBox);
    clearInvalid(form);
    try {
      fill(await openApiExample(example));
      document.getElementById(firstField).focus();
    } catch (err) {
      showError(errorBox, err);
      errorBox.scrollIntoView({ block: 'nearest' });
    }
  });
  submitOnCtrlEnter(form);
}
