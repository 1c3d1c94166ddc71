// The API as the dashboard calls it: same origin, with the key kept in this tab's session storage.
const KEY_STORAGE = 'tutor-reward-api-key';

export const apiKey = () => sessionStorage.getItem(KEY_STORAGE) ?? '';

export function setApiKey(key) {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
}

/** An error answer of the API: its status, its machine-readable code, its message and the fields at fault. */
export class ApiError extends Error {
  constructor(status, code, message, issues = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.issues = issues;
  }
}

const headers = (json) => ({
  ...(apiKey() ? { authorization: `Bearer ${apiKey()}` } : {}),
  ...(json ? { 'content-type': 'application/json' } : {}),
});

async function call(path, { method = 'GET', body } = {}) {
  const res = await fetch(path, { method, headers: headers(body !== undefined), body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.ok) return res;
  const text = await res.text();
  let code = '';
  let message = text;
  let issues = [];
  try {
    ({ code, message, issues = [] } = JSON.parse(text));
  } catch {
    // not JSON: the text is the message
  }
  throw new ApiError(res.status, code, message, issues);
}

/** The JSON answer of a call; ApiError for an error answer. */
export async function api(path, options) {
  return (await call(path, options)).json();
}

/** Saves an answer (CSV or JSON) as a file: the key goes in a header, so a plain link would not do. */
export async function download(path, filename) {
  const blob = await (await call(path)).blob();
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = filename;
  a.click();
  URL.revokeObjectURL(a.href);
}
