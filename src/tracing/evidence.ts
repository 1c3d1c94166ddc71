import type { KnowledgeComponent } from './kcs.js';

// Deterministic evidence rules: what one dialogue turn says about one knowledge component (KC).
//  - A student turn that uses or names the KC is a correct observation; one whose confusion sentence
//    ("I don't know what … does", "could you explain …", "I haven't used …") names it is an incorrect one.
//  - A tutor turn that names or explains the KC is an opportunity to learn (BKT's transition), not
//    evidence that the student knows it.
//  - Naming is by identifier (exact, below) or, failing that, by meaning: the cosine between the turn's
//    and the KC's sentence embeddings (given to the rules). Within one task every KC is close to every
//    turn (USE-lite cosines on Coding-Tutor dialogues are all high and bunched together), so a turn is
//    about a KC by meaning only when the cosine clears a floor and is within a margin of the turn's best KC.

type Observation = 'correct' | 'incorrect' | 'taught';

export interface Evidence {
  observation: Observation;
  /** How sure the rule is that the turn is about this KC, in (0, 1]; weighs the BKT update. */
  strength: number;
  via: 'identifier' | 'semantic';
  /** The identifiers found, or the cosine. */
  matched: string[] | number;
}

export interface SemanticThresholds {
  /** Below this cosine a turn is not about the KC. */
  min: number;
  /** At or above this cosine a semantic match counts as fully as an identifier. */
  full: number;
  /** Only the KCs within this much of the turn's best cosine. */
  margin: number;
}

const FENCE = /```[^\n]*\n?([\s\S]*?)(```|$)/g;
const INLINE = /`([^`\n]+)`/g;
const IDENT = /[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/g;
const CONFUSION =
  /\b(i\s+(do\s*n[o']?t|dont|didn'?t)\s+(really\s+)?(know|understand|get)|not\s+(really\s+)?sure|no\s+idea|confus(ed|ing)|(have\s*n[o']?t|never)\s+used|not\s+familiar|unfamiliar|what\s+(does|do|is|are)\b|how\s+(do|does|can|should|would)\s+(i|we|you)\b|(could|can|would)\s+you\s+(please\s+)?(explain|show|provide|give|tell))/i;

/** An identifier that cannot be an ordinary English word: a path, snake_case, camelCase or with digits. */
const codeLike = (id: string) => /[._\d]|[a-z][A-Z]/.test(id);

/** Identifiers a KC is named by: a dependency path's last segment; the code terms of a solution step. */
export function kcIdentifiers(kc: KnowledgeComponent): string[] {
  const raw = kc.kind === 'dependency' ? [kc.text] : [...kc.text.matchAll(INLINE)].map((m) => m[1]!);
  const ids = raw.flatMap((term) => [...term.matchAll(IDENT)].map((m) => m[0])).map(normalize);
  return [...new Set(ids.map((id) => (kc.kind === 'dependency' ? id.split('.').at(-1)! : id)).filter((id) => id.length >= 3))];
}

/** "self.filename" → "filename": the object a method is called on varies, the member does not. */
function normalize(id: string): string {
  return id.replace(/^(self|this|cls)\./, '');
}

export interface TurnText {
  /** Identifiers written as code: in fences or backticks. */
  code: Set<string>;
  /** Code-like identifiers written in prose, where a plain word would be ambiguous. */
  prose: Set<string>;
  /** Sentences outside code that express confusion, with the identifiers each names. */
  confused: Set<string>[];
  hasConfusion: boolean;
}

function identifiersIn(text: string, keep: (id: string) => boolean): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(IDENT)) {
    const id = normalize(m[0]);
    // "cursor.execute" names both itself and its member "execute".
    for (const part of [id, ...id.split('.').slice(1)]) if (keep(part)) out.add(part);
  }
  return out;
}

export function readTurn(text: string): TurnText {
  const fenced = [...text.matchAll(FENCE)].map((m) => m[1]!);
  const noFences = text.replace(FENCE, ' ');
  const inline = [...noFences.matchAll(INLINE)].map((m) => m[1]!);
  const code = identifiersIn([...fenced, ...inline].join('\n'), () => true);
  const prose = identifiersIn(noFences.replace(INLINE, ' '), codeLike);
  const sentences = noFences.split(/(?<=[.!?])\s+|\n+/).filter((s) => CONFUSION.test(s));
  return {
    code,
    prose,
    confused: sentences.map((s) =>
      identifiersIn(
        s.replace(INLINE, (_, c: string) => ` ${c} `),
        () => true,
      ),
    ),
    hasConfusion: sentences.length > 0,
  };
}

/**
 * What one turn says about one KC, or null. `cosine` is between the turn and the KC text, `best` the
 * turn's highest cosine over the task's KCs.
 */
export function evidenceFor(
  role: 'tutor' | 'student',
  turn: TurnText,
  kc: KnowledgeComponent,
  identifiers: readonly string[],
  cosine: number,
  best: number,
  thresholds: SemanticThresholds,
): Evidence | null {
  const named = identifiers.filter((id) => turn.code.has(id) || turn.prose.has(id) || turn.confused.some((s) => s.has(id)));
  if (named.length > 0) {
    // A step names several code terms; naming some of them is partial evidence for the step.
    const strength = kc.kind === 'step' ? named.length / identifiers.length : 1;
    if (role === 'tutor') return { observation: 'taught', strength, via: 'identifier', matched: named };
    const confused = named.some((id) => turn.confused.some((s) => s.has(id)));
    return { observation: confused ? 'incorrect' : 'correct', strength, via: 'identifier', matched: named };
  }
  if (cosine < thresholds.min || cosine < best - thresholds.margin) return null;
  const strength = Math.min(1, (cosine - thresholds.min) / (thresholds.full - thresholds.min)) || Number.EPSILON;
  if (role === 'tutor') return { observation: 'taught', strength, via: 'semantic', matched: cosine };
  return { observation: turn.hasConfusion ? 'incorrect' : 'correct', strength, via: 'semantic', matched: cosine };
}
