// The fix: what differs between the student's attempt and the reference, token by token. A turn that writes
// the fix reveals the answer, however it renames, reformats or rewrites around it; a turn that quotes the
// student's own code never holds it, since the fix is exactly what that code lacks.
import { diffArrays } from 'diff';
import { type CodeToken, literalForm } from './tokens.js';

/**
 * How tokens compare: a name the reference or the attempt only uses (a builtin, a library's function, an
 * attribute) is itself; a name either binds, or any name they do not have, is any name ("ID"), so a
 * renamed variable matches. Literals compare without their quotes' style.
 */
export class Names {
  private readonly kept = new Set<string>();

  constructor(...codes: readonly (readonly CodeToken[])[]) {
    const bound = new Set<string>();
    for (const tokens of codes) for (const t of tokens) if (t.kind === 'name' && t.bound) bound.add(t.text);
    for (const tokens of codes) for (const t of tokens) if (t.kind === 'name' && !bound.has(t.text)) this.kept.add(t.text);
  }

  norm(t: CodeToken): string {
    if (t.kind === 'name') return this.kept.has(t.text) ? t.text : 'ID';
    return t.kind === 'literal' ? literalForm(t.text) : t.text;
  }
}

/** One change the reference makes to the attempt. */
export interface FixHunk {
  /**
   * The reference's tokens that replace the attempt's, with the tokens around them, in Names' normal form;
   * null when the attempt holds that text elsewhere as written (`return True` where it has another
   * `return True`): code that holds it cannot be told from a quote of the student's. Where the fix is and
   * what it writes (`lines`, `added`) still say what prose states it and which hint points at it.
   */
  signature: string[] | null;
  /** true when the normal form cannot tell the change from the attempt (a name swapped for another): the signature then keeps names as written. */
  exactNames: boolean;
  /**
   * The change read from the other side, when it is a comparison of two tokens (`i <= n` as `n >= i`), as
   * written: in normal form it would be any comparison of two names.
   */
  mirror: string[] | null;
  /** The reference's new tokens, as written. */
  added: CodeToken[];
  /** The lines of the attempt the change falls on (1-based). */
  lines: number[];
}

// Tokens of the reference kept around a change: enough to place it, few enough to survive a rewrite around it.
const BEFORE = 1;
const AFTER = 1;
// Two tokens (`= 1`) are in half the code there is.
const MIN_SIGNATURE = 3;

const rawForm = (t: CodeToken): string => (t.kind === 'literal' ? literalForm(t.text) : t.text);

/** The changes from `attempt` to `reference`, each with its signature. */
export function fixOf(attempt: readonly CodeToken[], reference: readonly CodeToken[], names: Names): FixHunk[] {
  const changes = diffArrays(attempt.map(rawForm), reference.map(rawForm));
  const hunks: FixHunk[] = [];
  // The attempt as a signature is matched against it (findSignature: "ID" is any name, a builtin too), so that
  // a signature the attempt holds is widened, or kept as written, by the rule a candidate is read with.
  const attemptForms = attempt.map((t) => ({ form: names.norm(t), name: t.kind === 'name' }));
  const inAttempt = (signature: readonly string[]) => findSignature(attemptForms, signature) >= 0;
  const attemptRaw = ` ${attempt.map(rawForm).join(' ')} `;
  let a = 0;
  let r = 0;
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i]!;
    if (!c.added && !c.removed) {
      a += c.count!;
      r += c.count!;
      continue;
    }
    // A change is a removal, an addition, or a removal followed by its addition.
    const removed = c.removed ? c.count! : 0;
    const next = changes[i + 1];
    const added = c.added ? c.count! : c.removed && next?.added ? next.count! : 0;
    if (c.removed && next?.added) i++;
    const addedTokens = reference.slice(r, r + added);
    const touched = attempt.slice(a, a + Math.max(1, removed));
    const lines = [...new Set((touched.length > 0 ? touched : attempt.slice(Math.max(0, a - 1), a)).map((t) => t.line))];
    const window = signatureWindow(reference, r, added, (w) => inAttempt(w.map((t) => names.norm(t))));
    a += removed;
    r += added;
    if (window.length < 2) continue;
    const signature = window.map((t) => names.norm(t));
    const exactNames = inAttempt(signature);
    const raw = window.map(rawForm);
    if (exactNames && attemptRaw.includes(` ${raw.join(' ')} `)) {
      hunks.push({ signature: null, exactNames, mirror: null, added: addedTokens, lines });
      continue;
    }
    const mirror = mirrorOf(window);
    hunks.push({
      signature: exactNames ? raw : signature,
      exactNames,
      // Never one the attempt holds, so that a quote of the student's code cannot match it.
      mirror: mirror && !attemptRaw.includes(` ${mirror.join(' ')} `) ? mirror : null,
      added: addedTokens,
      lines,
    });
  }
  return hunks;
}

/**
 * The reference's tokens that show a change at `r` (`added` new tokens): the new tokens with BEFORE and AFTER
 * of context, from the change's own lines only (a line quoted alone holds no other), widened a token each
 * side at a time while shorter than MIN_SIGNATURE or while the attempt holds the same text elsewhere
 * (`dim=-1` where the attempt has other `dim=-1`s).
 */
function signatureWindow(reference: readonly CodeToken[], r: number, added: number, inAttempt: (w: CodeToken[]) => boolean): CodeToken[] {
  const first = reference[r]?.line ?? reference[r - 1]?.line;
  const last = reference[r + Math.max(0, added - 1)]?.line ?? first;
  let from = r;
  let to = r + added;
  const canBefore = () => from > 0 && reference[from - 1]!.line === first;
  const canAfter = () => to < reference.length && reference[to]!.line === last;
  for (let k = 0; k < BEFORE && canBefore(); k++) from--;
  for (let k = 0; k < (added === 0 ? BEFORE : AFTER) && canAfter(); k++) to++;
  while ((to - from < MIN_SIGNATURE || inAttempt(reference.slice(from, to))) && (canBefore() || canAfter())) {
    if (canBefore()) from--;
    if (canAfter()) to++;
  }
  return reference.slice(from, to);
}

/** Each comparison operator as read from the other side: `x < y` states what `y > x` does. */
export const MIRRORED: Record<string, string> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=', '==': '==', '!=': '!=', '===': '===', '!==': '!==' };

/** `x op y` as `y op' x`, as written, for a comparison of two names or literals, which states the same; null for any other window. */
function mirrorOf(window: readonly CodeToken[]): string[] | null {
  if (window.length !== 3) return null;
  const [x, op, y] = window as [CodeToken, CodeToken, CodeToken];
  const other = MIRRORED[op.text];
  return other === undefined || x.kind === 'other' || y.kind === 'other' ? null : [rawForm(y), other, rawForm(x)];
}

/** A token as a signature is matched against it: its normal form, and whether it is a name. */
export interface Form {
  form: string;
  name: boolean;
}

/** Where `signature` first occurs in `tokens`, or -1; the signature's "ID" stands for any name. */
export function findSignature(tokens: readonly Form[], signature: readonly string[]): number {
  outer: for (let i = 0; i + signature.length <= tokens.length; i++) {
    for (let k = 0; k < signature.length; k++) {
      const t = tokens[i + k]!;
      if (t.form !== signature[k] && !(signature[k] === 'ID' && t.name)) continue outer;
    }
    return i;
  }
  return -1;
}
