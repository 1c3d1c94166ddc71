import type { ResolvedOptions } from '../../contracts/options.js';
import type { RunStepInfoSchema } from '../../contracts/runs.js';
import type { AxisVector } from '../../grpo/compose.js';
import { composeEvaluatedGroup, summaryOfGroups, type EvaluatedGroup, type paletteInfo } from '../../scoring/score-groups.js';
import { VERSIONS } from '../../scoring/versions.js';
import type { evaluateGroupsTask, TaskFailure, WireJudgedPlan } from '../tasks/index.js';
import type { z } from 'zod';

/** A group as a worker judged it, with the buffer its plans' detail ranges point into. */
interface JudgedGroup extends EvaluatedGroup<WireJudgedPlan> {
  details: Uint8Array;
}

/** A request's plans as the workers judged them: the weight-independent half of scoring. */
export interface Judgement {
  groups: JudgedGroup[];
  palette: ReturnType<typeof paletteInfo>;
}

type Part = Exclude<Awaited<ReturnType<typeof evaluateGroupsTask>>, TaskFailure>;

/** The judged parts of a request, in order, as one judgement; its plans stay as the workers sent them. */
export function judgementOf(parts: readonly Part[]): Judgement {
  return {
    groups: parts.flatMap((p) => p.groups.map((g) => ({ ...g, details: p.details }))),
    palette: parts[0]!.palette,
  };
}

export type Composed = ReturnType<typeof compose>;

/**
 * The group-relative half, on the main thread with the step's weights: what the plans come to now, and
 * each group composed only as its JSON is written (responseJson), so 4,096 plans are not composed in one
 * turn and their composed objects die young instead of outliving the collector's scavenges.
 */
export function compose(j: Judgement, options: ResolvedOptions, weights: AxisVector, full = true) {
  return {
    summary: summaryOfGroups(j.groups),
    groups: j.groups,
    palette: j.palette,
    options,
    weights,
    full,
  };
}

// A response is written in pieces of about this many bytes (a piece is one turn's write: a much larger
// piece held the main thread for a long write to the socket), and a large one yields the event loop after
// about TURN_BYTES: the JSON of 4,096 plans, written in one go, held it for one long stretch.
const PIECE_BYTES = 64 * 1024;
const TURN_BYTES = 512 * 1024;
const DETAIL_MARK = /,"detail":(\d+)\}/g;

/**
 * The /score-plan response as UTF-8 JSON in pieces whose concatenation is byte for byte what JSON.stringify
 * of scoreGroups' response gives (a test holds the two equal); `pause`, when given, is awaited between
 * stretches of writing. Only this code writes `"detail":` followed by a bare number: a client's strings
 * reach the text with their quotes escaped, so the pattern cannot come from them.
 */
export async function responseJson(c: Composed, run: z.infer<typeof RunStepInfoSchema> | null, pause?: () => Promise<unknown>): Promise<Buffer[]> {
  const { options, weights } = c;
  // "groups" is the first key: the text after its value is the rest of the object.
  const rest = JSON.stringify({ groups: 0, weights, options, palette: c.palette, versions: VERSIONS, run }).slice('{"groups":0'.length);
  const pieces: Buffer[] = [];
  let piece: Uint8Array[] = [Buffer.from('{"groups":[')];
  let size = 0;
  let written = 0;
  const add = (bytes: Uint8Array) => {
    piece.push(bytes);
    size += bytes.length;
    written += bytes.length;
  };
  for (const [i, judged] of c.groups.entries()) {
    // Each plan's detail stays the JSON its worker wrote; the plan carries its index in `tails` until written.
    const tails: Uint8Array[] = [];
    const detail = (e: WireJudgedPlan) => ({ detail: tails.push(judged.details.subarray(...e.detail)) - 1 });
    const g = composeEvaluatedGroup(judged, i, options, weights, c.full ? detail : () => ({}));
    const json = (i === 0 ? '' : ',') + JSON.stringify(g);
    let from = 0;
    for (const m of json.matchAll(DETAIL_MARK)) {
      add(Buffer.from(`${json.slice(from, m.index)},`));
      add(tails[Number(m[1])]!);
      from = m.index + m[0].length - 1;
    }
    add(Buffer.from(json.slice(from)));
    if (size >= PIECE_BYTES) {
      pieces.push(Buffer.concat(piece));
      piece = [];
      size = 0;
    }
    if (pause && written >= TURN_BYTES) {
      await pause();
      written = 0;
    }
  }
  piece.push(Buffer.from(`]${rest}`));
  pieces.push(Buffer.concat(piece));
  return pieces;
}
