// What every page shares: the navigation, the API key field, and how errors are shown.
import { ApiError, apiKey, setApiKey } from './api.js';

const PAGES = [
  ['index.html', 'Runs'],
  ['verify.html', 'Verifier'],
  ['trace.html', 'Knowledge trace'],
  ['plan.html', 'Plan'],
];

/** Draws the header into #shell; `onKey` runs after the key changes (pages reload their data). */
export function mountShell(active, onKey = () => location.reload()) {
  const header = document.getElementById('shell');
  const nav = document.createElement('nav');
  nav.setAttribute('aria-label', 'Dashboard pages');
  for (const [href, label] of PAGES) {
    const a = document.createElement('a');
    a.href = href;
    a.textContent = label;
    if (href === active) a.setAttribute('aria-current', 'page');
    nav.append(a);
  }
  const docs = document.createElement('a');
  docs.href = '/docs';
  docs.textContent = 'API docs';
  nav.append(docs);

  const form = document.createElement('form');
  form.className = 'key';
  form.innerHTML = `<label for="api-key">API key</label>
    <input id="api-key" type="password" autocomplete="off" placeholder="only if the service has keys">
    <button type="submit">Use key</button>`;
  const input = form.querySelector('input');
  input.value = apiKey();
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    setApiKey(input.value.trim());
    onKey();
  });
  const title = document.createElement('h1');
  title.textContent = 'Tutor reward service';
  header.append(title, nav, form);
}

/** Shows what went wrong in `el` (a role="alert" element), with the API's code and a hint for keys. */
export function showError(el, err) {
  el.hidden = false;
  if (err instanceof ApiError) {
    const hint = err.status === 401 ? ' Enter a key above (a read key is enough to view; score to run the verifier and tracer).' : '';
    el.textContent = `${err.status} ${err.code}: ${err.message}.${hint}`;
  } else {
    el.textContent = String(err?.message ?? err);
  }
}

export function clearError(el) {
  el.hidden = true;
  el.textContent = '';
}

/** `<tag class=cls>text</tag>`, for building tables and lists without innerHTML. */
export function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

export const fmt = (x, digits = 3) => (x === null || x === undefined || Number.isNaN(x) ? '–' : Number(x).toFixed(digits));
