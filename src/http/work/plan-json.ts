import type { ResolvedOptions } from '../../contracts/options.js';
import type { RunStepInfoSchema } from '../../contracts/runs.js';
import type { AxisVector } from '../../grpo/compose.js';
import { composeGroups, type EvaluatedGroup, type paletteInfo } from '../../scoring/score-groups.js';
import { VERSIONS } from '../../scoring/versions.js';
import type { JudgedPlan } from './tasks.js';
import type { z } from 'zod';

/** A request's plans as the workers judged them: the weight-independent half of scoring. */
export interface Judgement {
  groups: EvaluatedGroup<JudgedPlan>[];
  palette: ReturnType<typeof paletteInfo>;
}

export type Composed = ReturnType<typeof compose>;

/**
 * The group-relative half, on the main thread with the step's weights. Each plan's detail stays the JSON
 * text its worker wrote; the plan carries its index in `tails` until the response is written.
 */
export function compose(j: Judgement, options: ResolvedOptions, weights: AxisVector, full = true) {
  const tails: string[] = [];
  const { groups, summary } = composeGroups(j.groups, options, weights, (e) => (full ? { detail: tails.push(e.detail) - 1 } : {}));
  return { groups, summary, tails, palette: j.palette };
}

/**
 * The /score-plan response as JSON text, byte for byte what JSON.stringify of scoreGroups' response gives
 * (a test holds the two equal). Only this code writes `"detail":` followed by a bare number: a client's
 * strings reach the text with their quotes escaped, so the pattern cannot come from them.
 */
export function responseJson(c: Composed, options: ResolvedOptions, weights: AxisVector, run: z.infer<typeof RunStepInfoSchema> | null): string {
  const json = JSON.stringify({ groups: c.groups, weights, options, palette: c.palette, versions: VERSIONS, run });
  return json.replace(/,"detail":(\d+)\}/g, (_, k: string) => `,${c.tails[Number(k)]!}}`);
}
