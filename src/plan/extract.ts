// Takes the plan object out of a completion. Planners wrap JSON in prose, ```json fences or reasoning
// blocks; nothing is repaired: if no candidate parses as a JSON object, the plan is a parse error.
export type Extraction = { ok: true; value: Record<string, unknown>; source: 'object' | 'bare' | 'fence' | 'embedded' } | { ok: false; reason: string };

const THINK = /<think>[\s\S]*?<\/think>/gi;
const FENCE = /```[ \t]*([A-Za-z0-9_-]*)[^\n]*\n([\s\S]*?)```/g;
const MAX_EMBEDDED_ATTEMPTS = 16;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function tryParse(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** End index (inclusive) of the balanced {...} starting at `start`, string- and escape-aware. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */) depth++;
    else if (c === 125 /* } */ && --depth === 0) return i;
  }
  return -1;
}

export function extractPlanObject(completion: unknown): Extraction {
  if (isObject(completion)) return { ok: true, value: completion, source: 'object' };
  if (typeof completion !== 'string') return { ok: false, reason: 'completion is neither a string nor a JSON object' };

  const trimmed = completion.trim();
  if (trimmed.startsWith('{')) {
    const v = tryParse(trimmed);
    if (v) return { ok: true, value: v, source: 'bare' };
  }
  const text = completion.includes('<think>') ? completion.replace(THINK, ' ') : completion;

  if (text.includes('```')) {
    const fenced = [...text.matchAll(FENCE)];
    // A block labelled json is preferred over an unlabelled one.
    fenced.sort((a, b) => Number((b[1] ?? '').toLowerCase() === 'json') - Number((a[1] ?? '').toLowerCase() === 'json'));
    for (const m of fenced) {
      const v = tryParse((m[2] ?? '').trim());
      if (v) return { ok: true, value: v, source: 'fence' };
    }
  }

  let from = text.indexOf('{');
  for (let attempt = 0; from !== -1 && attempt < MAX_EMBEDDED_ATTEMPTS; attempt++) {
    const end = balancedEnd(text, from);
    if (end === -1) break;
    const v = tryParse(text.slice(from, end + 1));
    if (v) return { ok: true, value: v, source: 'embedded' };
    // Resume after the failed candidate, never inside it: an object nested in broken JSON is a fragment.
    from = text.indexOf('{', end + 1);
  }
  return {
    ok: false,
    reason: text.includes('{') ? 'no candidate {...} in the completion is valid JSON' : 'the completion contains no JSON object',
  };
}
