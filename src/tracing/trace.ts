import { cosineMatrix } from '../text/similarity.js';
import type { DialogueTurn } from '../contracts/verify-turn.js';
import { posterior, transition, type BktParams } from './bkt.js';
import { evidenceFor, kcIdentifiers, readTurn, type Evidence, type SemanticThresholds } from './evidence.js';
import type { KnowledgeComponent } from './kcs.js';

export interface TraceInput {
  kcs: readonly KnowledgeComponent[];
  /** The dialogue; turns before `from` are already reflected in `initial`. */
  context: readonly DialogueTurn[];
  from: number;
  /** p(known) of each KC before turn `from`; KCs without one start at params.prior. */
  initial: ReadonlyMap<string, number>;
  params: BktParams;
  threshold: number;
  semantic: SemanticThresholds;
  /** Sentence embeddings of texts, in order (the service's encoder). */
  embed: (texts: string[]) => Promise<Float32Array[]>;
}

interface EvidenceStep extends Evidence {
  turn: number;
  role: DialogueTurn['role'];
  p_before: number;
  p_after: number;
}

interface KcTrace extends KnowledgeComponent {
  p_before: number;
  p_after: number;
  status: 'known' | 'unknown';
  evidence: EvidenceStep[];
}

export interface TraceResult {
  kcs: KcTrace[];
  /** Traver's output format: the KC ids the student knows and does not know. */
  known: string[];
  unknown: string[];
  turns_read: number;
}

/**
 * BKT per KC over the dialogue's turns from `from` on. A student turn with evidence is an observation:
 * posterior (correct or incorrect), then the transition; a tutor turn that teaches the KC is the transition
 * alone; a turn without evidence leaves the KC as it was. Evidence of strength s < 1 moves p(known) by
 * that share: p ← s·update(p) + (1 − s)·p.
 */
export async function traceKnowledge(input: TraceInput): Promise<TraceResult> {
  const { kcs, context, from, params } = input;
  const turns = context.slice(from);
  const [kcVectors, turnVectors] = await Promise.all([input.embed(kcs.map((k) => k.text)), input.embed(turns.map((t) => t.text))]);
  const identifiers = kcs.map(kcIdentifiers);
  const traces: KcTrace[] = kcs.map((kc) => {
    const p = input.initial.get(kc.id) ?? params.prior;
    return { ...kc, p_before: p, p_after: p, status: 'unknown', evidence: [] };
  });
  const cosineRows = cosineMatrix(turnVectors, kcVectors);
  turns.forEach((turn, t) => {
    const read = readTurn(turn.text);
    const cosines = cosineRows[t]!;
    const best = Math.max(...cosines);
    traces.forEach((trace, k) => {
      const ev = evidenceFor(turn.role, read, kcs[k]!, identifiers[k]!, cosines[k]!, best, input.semantic);
      if (!ev) return;
      const before = trace.p_after;
      const updated = ev.observation === 'taught' ? transition(before, params) : transition(posterior(before, ev.observation === 'correct', params), params);
      trace.p_after = ev.strength * updated + (1 - ev.strength) * before;
      trace.evidence.push({
        turn: from + t,
        role: turn.role,
        ...ev,
        matched: typeof ev.matched === 'number' ? round(ev.matched) : ev.matched,
        strength: round(ev.strength),
        p_before: before,
        p_after: trace.p_after,
      });
    });
  });
  for (const trace of traces) trace.status = trace.p_after >= input.threshold ? 'known' : 'unknown';
  return {
    kcs: traces,
    known: traces.filter((t) => t.status === 'known').map((t) => t.id),
    unknown: traces.filter((t) => t.status === 'unknown').map((t) => t.id),
    turns_read: turns.length,
  };
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;
