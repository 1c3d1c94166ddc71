// The plan tasks: /score-plan's groups judged and read, OpenRLHF's samples, /evaluate-plan's metrics.
import type { EvaluatePlanRequest } from '../../contracts/evaluate-plan.js';
import { readJsonBody, readJsonElements } from '../../request-body/json.js';
import { ScorePlanGroupSchema, ScorePlanRequestSchema, type ScorePlanRequest } from '../../contracts/score-plan.js';
import { fingerprintOfParts } from '../../runs/idempotency.js';
import { MovableWriter } from '../../common/movable-bytes.js';
import { completionCount, runPart, splitGroups, type BytesPart } from '../score-plan/split-groups.js';
import { resolvePalette } from '../../plan/palette.js';
import { parsePlan, type PlanLimits } from '../../plan/parse.js';
import { evaluatePlanMetrics } from '../../plan-metrics/index.js';
import type { GateOptions, PlanEvaluation } from '../../scoring/evaluate-plan.js';
import { evaluateGroup, judgedOf, paletteInfo, planDetail, type EvaluatedGroup, type Judged } from '../../scoring/score-groups.js';
import { evaluateSamples, type Sample } from '../../scoring/score-samples.js';
import { encoder } from './models.js';
import { planJudgePrompt } from '../../rewards/judge/plan-rubric.js';
import { task, transfers, utf8, type Stop } from './task.js';

/**
 * A judged plan as it crosses back to the main thread: what composition needs, and where in its part's
 * `details` the rest of its response object lies, already as UTF-8 JSON.
 */
export interface WireJudgedPlan extends Judged {
  /** Byte range of `"components":…,"violations":…,"normalizations":…,"topology":…`, the tail of the plan's response object. */
  detail: [start: number, end: number];
  /** What the LLM judge is to be shown of the plan (`judge` of ScoreGroupsInput), until the main thread has asked it. */
  judge_prompt?: string;
}

/** A run of a body's groups as the client sent them: their JSON joined by commas, each group's at `ranges` (BytesPart). */
export interface GroupsText {
  bytes: Uint8Array;
  ranges: readonly number[];
}

/** Each group's JSON text of a run. */
function groupTexts({ bytes, ranges }: GroupsText): string[] {
  const texts: string[] = [];
  for (let i = 0; i < ranges.length; i += 2) texts.push(utf8(bytes.subarray(ranges[i], ranges[i + 1])));
  return texts;
}

export interface ScoreGroupsInput {
  /**
   * The groups, or a run of them as the client sent them, read and checked here as the body would be
   * (readJsonElements), the first of them the request's `first`-th group.
   */
  groups: ScorePlanRequest['groups'] | GroupsText;
  first?: number;
  maxDepth?: number;
  palette: ScorePlanRequest['palette'];
  limits: PlanLimits;
  gate: GateOptions;
  /** false: the response leaves each plan's detail out (`detail: "rewards"`), so none is written. */
  details?: boolean;
  /** true: each plan with guarded credit gets the prompt the LLM judge will read (`options.judge`). */
  judge?: boolean;
}

const NO_DETAIL: [number, number] = [0, 0];
/** Where a JSON array's or object's text was written, without its brackets or braces (one byte each). */
const inner = ([start, end]: [number, number]): [number, number] => [start + 1, end - 1];

/**
 * The groups' JSON texts joined by commas (JSON.stringify of the array, less its brackets), written a group
 * at a time, and where each lies: one JSON.stringify of a request's groups, megabytes, took several times
 * as long on Node 24, and on Node 20 its text cost as much again when first read.
 */
function writeGroups(out: MovableWriter, groups: readonly unknown[]): { starts: number[]; ends: number[] } {
  const starts: number[] = [];
  const ends: number[] = [];
  for (const [i, group] of groups.entries()) {
    if (i > 0) out.write(',');
    const [start, end] = out.write(JSON.stringify(group));
    starts.push(start);
    ends.push(end);
  }
  return { starts, ends };
}

/**
 * The judged groups, each plan's detail written into one buffer moved back with them: as bytes outside the
 * JavaScript heap, the details no longer cost the main thread's garbage collector (as strings, those of
 * 4,096 plans held it for long pauses). Groups are judged and written one at a time, so that a plan's
 * evaluation dies young: kept to the end of the part, the evaluations survived the scavenges, whose cost
 * is what survives them.
 */
export function evaluateGroupsTask(input: ScoreGroupsInput, stop: Stop) {
  return task(stop, () => {
    const palette = resolvePalette(input.palette);
    const given = Array.isArray(input.groups)
      ? input.groups
      : readJsonElements(groupTexts(input.groups), ScorePlanGroupSchema, input.maxDepth!, ['groups'], input.first ?? 0, ScorePlanRequestSchema);
    const out = new MovableWriter();
    // Without the object's braces: the main thread writes the fields after the composed ones.
    const detail = (e: PlanEvaluation): [number, number] => {
      if (input.details === false) return NO_DETAIL;
      return inner(out.write(JSON.stringify(planDetail(e))));
    };
    const groups = given.map((group): EvaluatedGroup<WireJudgedPlan> => {
      const judged = evaluateGroup(group, palette, input.limits, input.gate);
      const prompt = (e: PlanEvaluation) =>
        input.judge && e.gaming?.guarded
          ? { judge_prompt: planJudgePrompt({ query: group.query, profile: group.profile, reference: group.reference, plan: e.plan! }) }
          : {};
      return { ...judged, plans: judged.plans.map((e) => ({ ...judgedOf(e), detail: detail(e), ...prompt(e) })) };
    });
    const details = out.bytes;
    const result = { groups, palette: paletteInfo(palette), details };
    transfers.set(result, [details.buffer]);
    return result;
  });
}

export interface ReadScorePlanInput {
  /** The request body as the client sent it. */
  json: Uint8Array;
  maxDepth: number;
  /** Workers to split the groups for (splitGroups). */
  workers: number;
  /**
   * Whether to take the fingerprint of the request's content, for a request with an Idempotency-Key: its
   * bytes are moved here, and a receipt stored before fingerprints were of bytes is compared with it.
   */
  fingerprint: boolean;
}

/**
 * A large /score-plan body read whole here, one whose groups were not found as it arrived (compressed, or
 * one the scanner was unsure of): parsed and validated as the main thread would (the same 400s), and its
 * groups cut into the parts the workers judge, as the JSON of each, one after the other in `json` (moved
 * to the main thread, not copied).
 */
export function readScorePlanTask(input: ReadScorePlanInput, stop: Stop) {
  return task(stop, () => {
    const body = readJsonBody(utf8(input.json), ScorePlanRequestSchema, input.maxDepth);
    const { groups, ...head } = body;
    const runs = splitGroups(groups, input.workers);
    const writer = new MovableWriter();
    const { starts, ends } = writeGroups(writer, groups);
    const json = writer.bytes;
    let to = 0;
    const parts: BytesPart[] = runs.map((run) => runPart(starts, ends, to, (to += run.length)));
    const out = {
      head,
      plans: completionCount(groups),
      // fingerprint(body), from the groups' text just written rather than a second text of the whole body.
      fingerprint: input.fingerprint
        ? fingerprintOfParts(
            body,
            parts.map((p) => json.subarray(p.start, p.end)),
          )
        : undefined,
      json,
      parts,
    };
    transfers.set(out, [json.buffer]);
    return out;
  });
}

export function evaluateSamplesTask(input: { samples: Sample[]; limits: PlanLimits; gate: GateOptions }, stop: Stop) {
  return task(stop, (): Judged[] => evaluateSamples(input.samples, input.limits, input.gate).map(judgedOf));
}

export function evaluatePlansTask(input: { body: EvaluatePlanRequest; limits: PlanLimits }, stop: Stop) {
  return task(stop, async () => {
    const { plans, gold, palette, options } = input.body;
    const parsed = plans.map((p) => parsePlan(p.plan, input.limits));
    const goldParsed = gold === undefined ? undefined : parsePlan(gold, input.limits);
    const readable = parsed.flatMap((p, index) => (p.ok ? [{ index, plan: p.plan, profile: plans[index]!.profile }] : []));
    const e = await encoder();
    const report = await evaluatePlanMetrics(readable, {
      gold: goldParsed?.ok ? goldParsed.plan : undefined,
      embed: (texts) => e.embed(texts),
      deltaTbq: options?.delta_tbq,
      kappa: options?.kappa,
      gedBudget: options?.ged_budget,
      palette,
      stop,
    });
    return { parsed, goldParsed, readable: readable.map((r) => r.index), report };
  });
}
