// Issue 74: what the guarded reward profile costs on /score-plan against paper, on 64×8 batches of FRESH
// text (bench/fresh-plans.ts: every sentence new, as a policy's samples are; the template batch of the other
// benches repeats its sentences, so the scorer's caches hit). Measured in one run, paper and guarded taking
// turns on the same batch, a new batch each round:
//   (a) in process: scoreGroups (the production build) per profile, against JSON.parse of the same body; and
//       the meaning reading's share: readPlanMeaning timed alone over the same plans, parsed once;
//   (b) over HTTP: the service as `npm start` runs it, each body POSTed from a fresh client process;
//   (c) paper on bench/score-plan.ts's template batch, in the same rounds, for comparison with its figures.
// Writes bench/results/guarded-latency.json (bench/guarded-latency-figures.ts renders it). Needs `npm run
// build` first. BENCH_ROUNDS (in process) and BENCH_HTTP_ROUNDS set the rounds. With BENCH_BEFORE_DIR, a
// tree of an earlier build (its `dist` built, node_modules beside it), that build's paper scoring of the
// same fresh and template batches takes turns with this one's in process ("paper no slower than before";
// BENCH_BEFORE_NAME labels it).
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { ScorePlanRequest } from '../src/contracts/score-plan.js';
import { CLIENT_WARM_UP, type ClientRequest, freshClientMs, stagesOf } from './fresh-client.js';
import { type FreshBody, freshBatch, sentencesOf } from './fresh-plans.js';
import { type GuardedLatencyFigures, renderGuardedLatency } from './guarded-latency-figures.js';
import { benchBatch, parseAll, parseBody, payloadsOf } from './realistic-plans.js';
import { readResult, writeResult } from './results.js';
import { startBuiltService } from './service.js';

// The production build, typed by its source: the scorer, the meaning reading and the plan parser share one
// word table.
const dist = (path: string) => new URL(`../dist/${path}`, import.meta.url).href;
const { scoreGroups, DEFAULT_SCORING } = (await import(dist('scoring/score-groups.js'))) as typeof import('../src/scoring/score-groups.js');
const { readPlanMeaning, meaningContext } = (await import(dist('rewards/meaning/read.js'))) as typeof import('../src/rewards/meaning/read.js');
const { parsePlan, DEFAULT_PLAN_LIMITS } = (await import(dist('plan/parse.js'))) as typeof import('../src/plan/parse.js');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const HTTP_ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 40);
const WARM_UP = 3;
const GROUPS = 64;
const PER_GROUP = 8;
const PROFILES = ['paper', 'guarded'] as const;
const BEFORE_DIR = process.env.BENCH_BEFORE_DIR;
const before = BEFORE_DIR
  ? {
      name: process.env.BENCH_BEFORE_NAME ?? BEFORE_DIR,
      score: await (async () => {
        const root = pathToFileURL(`${resolve(BEFORE_DIR)}/`);
        const g = (await import(new URL('dist/scoring/score-groups.js', root).href)) as typeof import('../src/scoring/score-groups.js');
        const p = (await import(new URL('dist/plan/parse.js', root).href)) as typeof import('../src/plan/parse.js');
        return (req: ScorePlanRequest) => g.scoreGroups(req, p.DEFAULT_PLAN_LIMITS, g.DEFAULT_SCORING);
      })(),
    }
  : null;
type Profile = (typeof PROFILES)[number];
const limits = DEFAULT_PLAN_LIMITS;

// Round numbers of the fresh batches: in process, over HTTP, and the client's warm-up body, apart.
const IN_PROCESS_ROUND = (i: number) => 10_000 + i;
const HTTP_ROUND = (i: number) => 20_000 + i;
const CLIENT_WARM_UP_ROUND = 29_999;

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}
const median = (xs: readonly number[]) => quantile(xs, 0.5);
const spread = (xs: readonly number[]) => ({ p50: median(xs), p10: quantile(xs, 0.1), p90: quantile(xs, 0.9) });
const round2 = (xs: number[]) => xs.map((x) => Number(x.toFixed(2)));

// Every sentence of every fresh batch of the run, hashed (cyrb53): a sentence an earlier batch held is one a
// cache could have kept.
function cyrb53(s: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
const sentenceHashes = new Set<number>();
let repeatedSentences = 0;
const sentenceCounts: number[] = [];
const bodyBytes: number[] = [];
function fresh(round: number): FreshBody {
  const b = freshBatch(round, GROUPS, PER_GROUP);
  const hashes = new Set(sentencesOf(b).map(cyrb53));
  sentenceCounts.push(hashes.size);
  for (const h of hashes) {
    if (sentenceHashes.has(h)) repeatedSentences++;
    else sentenceHashes.add(h);
  }
  return b;
}
const withProfile = (b: object, profile: Profile) => ({ ...b, options: { reward_profile: profile } });

function timeScore(text: string, profile: Profile, score = (req: ScorePlanRequest) => scoreGroups(req, limits, DEFAULT_SCORING)): number {
  const req = withProfile(JSON.parse(text) as object, profile) as ScorePlanRequest; // untimed: the body as the route hands it over
  const t = performance.now();
  score(req);
  return performance.now() - t;
}

// --- (a) and (c): in process ---
const template = benchBatch(GROUPS, PER_GROUP);
const templatePayloads = payloadsOf(template);
const templateText = JSON.stringify(withProfile(template, 'paper'));
const loadInProcess = { start: round2(loadavg()), end: [] as number[] };
const ms = { parse: [] as number[], paper: [] as number[], guarded: [] as number[], read: [] as number[], context: [] as number[] };
const template_ = { parse: [] as number[], paper: [] as number[], guarded: [] as number[] };
const before_ = { fresh: [] as number[], template: [] as number[] };
for (let i = 0; i < ROUNDS + WARM_UP; i++) {
  const batch = fresh(IN_PROCESS_ROUND(i));
  const text = JSON.stringify(batch);
  bodyBytes.push(Buffer.byteLength(text));
  // The earlier build's paper, on the same batches: first in even rounds, last in odd ones.
  const beforeRound = () => before && [timeScore(text, 'paper', before.score), timeScore(templateText, 'paper', before.score)];
  const beforeFirst = i % 2 === 0 ? beforeRound() : null;
  let t = performance.now();
  parseBody(text);
  const parse = performance.now() - t;
  // Paper and guarded on the same batch, which goes first alternating from round to round.
  const order: Profile[] = i % 2 === 0 ? ['paper', 'guarded'] : ['guarded', 'paper'];
  const scored = {} as Record<Profile, number>;
  for (const p of order) scored[p] = timeScore(text, p);
  // The meaning reading alone: the same plans, parsed once (untimed), each group's context built first.
  const groups = batch.groups.map((g) => ({
    g,
    plans: g.completions.flatMap((c) => {
      const o = parsePlan(c, limits);
      return o.ok ? [o.plan] : [];
    }),
  }));
  t = performance.now();
  const contexts = groups.map(({ g }) => meaningContext(g.query, g.profile));
  const context = performance.now() - t;
  t = performance.now();
  for (let k = 0; k < groups.length; k++) for (const plan of groups[k]!.plans) readPlanMeaning(plan, contexts[k]!);
  const read = performance.now() - t;
  // The template batch, paper (its figure in docs/performance.md) and guarded.
  t = performance.now();
  parseAll(templatePayloads);
  const templateParse = performance.now() - t;
  const templatePaper = timeScore(templateText, 'paper');
  const templateGuarded = timeScore(templateText, 'guarded');
  const beforeMs = beforeFirst ?? beforeRound();
  if (i < WARM_UP) continue;
  if (beforeMs) {
    before_.fresh.push(beforeMs[0]!);
    before_.template.push(beforeMs[1]!);
  }
  ms.parse.push(parse);
  ms.paper.push(scored.paper);
  ms.guarded.push(scored.guarded);
  ms.read.push(read);
  ms.context.push(context);
  template_.parse.push(templateParse);
  template_.paper.push(templatePaper);
  template_.guarded.push(templateGuarded);
  if ((i - WARM_UP) % 10 === 9)
    console.log(
      `in process: ${i + 1 - WARM_UP} rounds; paper ${scored.paper.toFixed(1)} ms, guarded ${scored.guarded.toFixed(1)} ms, meaning ${read.toFixed(1)} ms`,
    );
}
loadInProcess.end = round2(loadavg());

// --- (b) and (c) over HTTP: the service as `npm start` runs it, one fresh client process ---
// The client first sends its warm-up requests (CLIENT_WARM_UP) of a fresh body of its own, then, once each,
// in turn: the template body and a new fresh batch under paper and under guarded, which first alternating.
const loadHttp = { start: [] as number[], end: [] as number[] };
type Sent = { kind: 'warm' | 'template' | Profile; round: number };
const requests: ClientRequest[] = [];
const sent: Sent[] = [];
const add = (body: object, s: Sent) => {
  requests.push({ body: JSON.stringify(body) });
  sent.push(s);
};
add(withProfile(fresh(CLIENT_WARM_UP_ROUND), 'paper'), { kind: 'warm', round: -1 });
for (let i = 0; i < HTTP_ROUNDS + WARM_UP; i++) {
  const batch = fresh(HTTP_ROUND(i));
  add(withProfile(template, 'paper'), { kind: 'template', round: i });
  for (const p of i % 2 === 0 ? PROFILES : [...PROFILES].reverse()) add(withProfile(batch, p), { kind: p, round: i });
}
const { base, child } = await startBuiltService();
let times: Awaited<ReturnType<typeof freshClientMs>>;
try {
  loadHttp.start = round2(loadavg());
  times = await freshClientMs(`${base}/score-plan`, requests, 1, 0);
  loadHttp.end = round2(loadavg());
} finally {
  child.kill('SIGTERM');
}
const http = { paper: [] as number[], guarded: [] as number[], template: [] as number[] };
const judge = { paper: [] as number[], guarded: [] as number[] };
const pairs: Record<number, Partial<Record<Profile, number>>> = {};
sent.forEach((s, b) => {
  if (s.kind === 'warm' || s.round < WARM_UP) return;
  const took = times.ms[b]![0]!;
  http[s.kind].push(took);
  if (s.kind !== 'template') {
    judge[s.kind].push(stagesOf(times.serverTiming[b]![0]!).judge ?? Number.NaN);
    (pairs[s.round] ??= {})[s.kind] = took;
  }
});
const httpPairs = Object.values(pairs).map((p) => p.guarded! / p.paper!);

let committed: GuardedLatencyFigures['score_plan_committed'] = null;
try {
  const r = readResult<{
    in_process_ms: { p50: number };
    score_to_parse_ratio: { p50: number };
    own_wording: { score_to_parse_ratio: { p50: number } };
    http_ms: { p50: number };
  }>('score-plan');
  committed = {
    date: r.date,
    commit: r.machine?.commit ?? null,
    in_process_ms_p50: r.figures.in_process_ms.p50,
    score_to_parse_ratio_p50: r.figures.score_to_parse_ratio.p50,
    own_wording_score_to_parse_ratio_p50: r.figures.own_wording.score_to_parse_ratio.p50,
    http_ms_p50: r.figures.http_ms.p50,
  };
} catch {
  // no committed result to compare with
}

const profileFigures = (p: Profile) => ({
  in_process_ms: { p50: median(ms[p]), p99: quantile(ms[p], 0.99) },
  score_to_parse_ratio: spread(ms[p].map((x, i) => x / ms.parse[i]!)),
  http_ms: { p50: median(http[p]), p99: quantile(http[p], 0.99) },
  http_judge_ms: { p50: median(judge[p]) },
});
const figures: GuardedLatencyFigures = {
  batch: `${GROUPS} groups × ${PER_GROUP} plans`,
  plans: GROUPS * PER_GROUP,
  fresh: {
    batches: sentenceCounts.length,
    body_bytes: { p50: median(bodyBytes) },
    sentences_per_batch: median(sentenceCounts),
    repeated_sentences: repeatedSentences,
  },
  rounds: { in_process: ROUNDS, http: HTTP_ROUNDS, warm_up: WARM_UP, client_warm_up: CLIENT_WARM_UP },
  json_parse_ms: { p50: median(ms.parse) },
  paper: profileFigures('paper'),
  guarded: profileFigures('guarded'),
  guarded_over_paper: {
    in_process: median(ms.guarded) / median(ms.paper),
    http: median(http.guarded) / median(http.paper),
    in_process_pairs: median(ms.guarded.map((g, i) => g / ms.paper[i]!)),
    http_pairs: median(httpPairs),
  },
  meaning: {
    read_ms: { p50: median(ms.read) },
    context_ms: { p50: median(ms.context) },
    share_of_guarded: spread(ms.read.map((r, i) => r / ms.guarded[i]!)),
    share_of_guarded_with_context: { p50: median(ms.read.map((r, i) => (r + ms.context[i]!) / ms.guarded[i]!)) },
    share_of_paper: { p50: median(ms.read.map((r, i) => r / ms.paper[i]!)) },
  },
  template_paper: {
    body_bytes: Buffer.byteLength(templateText),
    in_process_ms: { p50: median(template_.paper), p99: quantile(template_.paper, 0.99) },
    score_to_parse_ratio: spread(template_.paper.map((x, i) => x / template_.parse[i]!)),
    http_ms: { p50: median(http.template), p99: quantile(http.template, 0.99) },
    guarded_in_process_ms: { p50: median(template_.guarded) },
  },
  score_plan_committed: committed,
  before: before && {
    build: before.name,
    fresh_paper_ms: { p50: median(before_.fresh) },
    template_paper_ms: { p50: median(before_.template) },
    fresh_paper_over_before_pairs: median(ms.paper.map((x, i) => x / before_.fresh[i]!)),
    template_paper_over_before_pairs: median(template_.paper.map((x, i) => x / before_.template[i]!)),
  },
  targets: { guarded_over_paper_max: 2, guarded_http_p50_max_ms: 1000 },
  loadavg: { in_process: loadInProcess, http: loadHttp },
};
console.log(JSON.stringify(figures, null, 2));
writeResult('guarded-latency', figures);
console.log(`\n${renderGuardedLatency(figures)}`);
