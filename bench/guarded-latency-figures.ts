// The figures of bench/guarded-latency.ts (bench/results/guarded-latency.json) and their table: what the
// guarded reward profile costs against paper on /score-plan 64×8 batches of fresh text, in process and over
// HTTP, measured in one run, and the share of it the meaning reading takes (issue 74).

interface Spread {
  p50: number;
  p10: number;
  p90: number;
}

/** One reward profile on the fresh batches. */
export interface ProfileLatency {
  /** scoreGroups on the 64×8 fresh batch, in the bench's process (the production build). */
  in_process_ms: { p50: number; p99: number };
  /** Each round's scoring time ÷ JSON.parse of the same body (the request and every completion in it). */
  score_to_parse_ratio: Spread;
  /** POST /score-plan round trips from a fresh client process, after its warm-up. */
  http_ms: { p50: number; p99: number };
  /** The service's own `judge` stage of those requests (Server-Timing). */
  http_judge_ms: { p50: number };
}

export interface GuardedLatencyFigures {
  batch: string;
  plans: number;
  /** The fresh batches (bench/fresh-plans.ts): every sentence of every plan new, a new batch each round. */
  fresh: {
    batches: number;
    body_bytes: { p50: number };
    /** Sentences (as the gaming reading splits them) per batch, p50. */
    sentences_per_batch: number;
    /** Sentences of a batch that an earlier batch of the run held: 0 means no cache could hit. */
    repeated_sentences: number;
  };
  rounds: { in_process: number; http: number; warm_up: number; client_warm_up: number };
  json_parse_ms: { p50: number };
  paper: ProfileLatency;
  guarded: ProfileLatency;
  guarded_over_paper: {
    /** Ratio of the two p50s. */
    in_process: number;
    http: number;
    /** Median over rounds of each round's guarded ÷ paper on the same batch, sent or scored one after the other. */
    in_process_pairs: number;
    http_pairs: number;
  };
  /** readPlanMeaning timed alone over the same batch's plans (parsed once), against the scoring time. */
  meaning: {
    read_ms: { p50: number };
    /** meaningContext for the batch's 64 groups (once per group in scoring). */
    context_ms: { p50: number };
    /** Per round: readPlanMeaning time ÷ guarded scoring time of that batch. */
    share_of_guarded: Spread;
    /** The same with the groups' meaning contexts counted too. */
    share_of_guarded_with_context: { p50: number };
    /** Per round: readPlanMeaning time ÷ paper scoring time (the paper profile reads the meaning too, for the gaming signals). */
    share_of_paper: { p50: number };
  };
  /** bench/score-plan.ts's batch: templates that repeat each sentence across plans (the scorer's caches hit), paper profile. */
  template_paper: {
    body_bytes: number;
    in_process_ms: { p50: number; p99: number };
    score_to_parse_ratio: Spread;
    http_ms: { p50: number; p99: number };
    /** The same batch under guarded, in process, for scale. */
    guarded_in_process_ms: { p50: number };
  };
  /** bench/results/score-plan.json as committed (docs/performance.md), for comparison; null when absent. */
  score_plan_committed: {
    date: string;
    commit: string | null;
    in_process_ms_p50: number;
    score_to_parse_ratio_p50: number;
    own_wording_score_to_parse_ratio_p50: number;
    http_ms_p50: number;
  } | null;
  /** With BENCH_BEFORE_DIR: an earlier build's paper scoring of the same batches, in process, taking turns with this build's. */
  before?: {
    build: string;
    fresh_paper_ms: { p50: number };
    template_paper_ms: { p50: number };
    /** Median over rounds of this build's paper ÷ the earlier build's, on the same batch (the table calls ≤ 1.05 no slower: noise). */
    fresh_paper_over_before_pairs: number;
    template_paper_over_before_pairs: number;
  } | null;
  targets: { guarded_over_paper_max: number; guarded_http_p50_max_ms: number };
  /** os.loadavg() (1, 5, 15 min) at the start and end of each part. */
  loadavg: { in_process: { start: number[]; end: number[] }; http: { start: number[]; end: number[] } };
}

const f = (x: number, d = 1) => x.toFixed(d);
const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
const met = (ok: boolean) => (ok ? 'met' : '**not met**');
const load = (l: number[]) => l.map((x) => f(x, 2)).join(' / ');

/** A short Markdown table of the figures: per profile, the ratios, the meaning share and the targets. */
export function renderGuardedLatency(s: GuardedLatencyFigures): string {
  const p = s.paper;
  const g = s.guarded;
  const r = s.guarded_over_paper;
  const ratioOk = r.in_process <= s.targets.guarded_over_paper_max && r.http <= s.targets.guarded_over_paper_max;
  const secondOk = g.http_ms.p50 <= s.targets.guarded_http_p50_max_ms;
  const t = s.template_paper;
  const c = s.score_plan_committed;
  return [
    `/score-plan, ${s.batch} of fresh text (every sentence new: ${s.fresh.batches} batches, ${s.fresh.sentences_per_batch.toLocaleString('en-US')} sentences each, ` +
      `${s.fresh.repeated_sentences} repeated from an earlier batch; body ${f(s.fresh.body_bytes.p50 / 1e6, 2)} MB), paper and guarded taking turns on each batch: ` +
      `${s.rounds.in_process} rounds in process, ${s.rounds.http} over HTTP from a fresh client after ${s.rounds.client_warm_up} warm-up requests. ` +
      `Load average (1 / 5 / 15 min) ${load(s.loadavg.in_process.start)} → ${load(s.loadavg.in_process.end)} in process, ` +
      `${load(s.loadavg.http.start)} → ${load(s.loadavg.http.end)} over HTTP.`,
    '',
    '| figure | paper | guarded | guarded ÷ paper | target |',
    '| --- | --- | --- | --- | --- |',
    `| in process, p50 (p99) | ${f(p.in_process_ms.p50)} ms (${f(p.in_process_ms.p99)}) | ${f(g.in_process_ms.p50)} ms (${f(g.in_process_ms.p99)}) | ${f(r.in_process, 2)}× (pairs ${f(r.in_process_pairs, 2)}×) | ≤ ${s.targets.guarded_over_paper_max}×: ${met(r.in_process <= s.targets.guarded_over_paper_max)} |`,
    `| scoring ÷ \`JSON.parse\` of the body, p50 (p10–p90); parse ${f(s.json_parse_ms.p50, 2)} ms | ${f(p.score_to_parse_ratio.p50)} (${f(p.score_to_parse_ratio.p10)}–${f(p.score_to_parse_ratio.p90)}) | ${f(g.score_to_parse_ratio.p50)} (${f(g.score_to_parse_ratio.p10)}–${f(g.score_to_parse_ratio.p90)}) | | |`,
    `| over HTTP, p50 / p99 | ${f(p.http_ms.p50)} / ${f(p.http_ms.p99)} ms | ${f(g.http_ms.p50)} / ${f(g.http_ms.p99)} ms | ${f(r.http, 2)}× (pairs ${f(r.http_pairs, 2)}×) | ≤ ${s.targets.guarded_over_paper_max}×: ${met(r.http <= s.targets.guarded_over_paper_max)}; guarded p50 ≤ ${f(s.targets.guarded_http_p50_max_ms / 1000, 0)} s: ${met(secondOk)} |`,
    `| in the service (\`Server-Timing\` judge), p50 | ${f(p.http_judge_ms.p50)} ms | ${f(g.http_judge_ms.p50)} ms | | |`,
    `| meaning reading (\`readPlanMeaning\` alone, ${f(s.meaning.read_ms.p50)} ms p50; group contexts ${f(s.meaning.context_ms.p50)} ms) ÷ scoring | ${pct(s.meaning.share_of_paper.p50)} | ${pct(s.meaning.share_of_guarded.p50)} (${pct(s.meaning.share_of_guarded.p10)}–${pct(s.meaning.share_of_guarded.p90)}; with contexts ${pct(s.meaning.share_of_guarded_with_context.p50)}) | | |`,
    `| template batch (bench/score-plan.ts: sentences repeat, caches hit), in process p50; ÷ \`JSON.parse\`; HTTP p50 / p99 | ${f(t.in_process_ms.p50)} ms; ${f(t.score_to_parse_ratio.p50, 2)}; ${f(t.http_ms.p50)} / ${f(t.http_ms.p99)} ms | ${f(t.guarded_in_process_ms.p50)} ms in process | | |`,
    ...(c
      ? [
          `| bench/results/score-plan.json (${c.date.slice(0, 10)}, build ${c.commit ?? 'unknown'}): template in process p50; ÷ \`JSON.parse\` (own wording); HTTP p50 | ${f(c.in_process_ms_p50)} ms; ${f(c.score_to_parse_ratio_p50, 2)} (${f(c.own_wording_score_to_parse_ratio_p50, 2)}); ${f(c.http_ms_p50)} ms | | | |`,
        ]
      : []),
    ...(s.before
      ? [
          `| paper, in process, this build ÷ ${s.before.build} on the same batches (median of pairs): fresh; template | ${f(s.before.fresh_paper_over_before_pairs, 2)}× (${f(s.before.fresh_paper_ms.p50)} ms before); ${f(s.before.template_paper_over_before_pairs, 2)}× (${f(s.before.template_paper_ms.p50)} ms before) | | | no slower: ${met(s.before.fresh_paper_over_before_pairs <= 1.05 && s.before.template_paper_over_before_pairs <= 1.05)} |`,
        ]
      : []),
    '',
    `Targets: guarded p50 ≤ ${s.targets.guarded_over_paper_max}× paper (${met(ratioOk)}) and ≤ ${f(s.targets.guarded_http_p50_max_ms / 1000, 0)} s over HTTP (${met(secondOk)}).`,
  ].join('\n');
}
