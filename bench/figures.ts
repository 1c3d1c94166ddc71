// The docs' figures, rendered from the benches' result files (bench/results/<name>.json). A doc embeds a
// block as `<!-- NAME-figures:start -->` … `<!-- NAME-figures:end -->`; `npm run figures` rewrites every
// block of README.md and docs/*.md from the committed results, and test/bench-figures.test.ts fails when
// one differs. History lives in git, not in the docs.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { type GuardedEvalFigures, renderGuardedEval } from './guarded-eval-figures.js';
import { type GuardedLatencyFigures, renderGuardedLatency } from './guarded-latency-figures.js';
import { type BenchResult, readResult } from './results.js';

const f = (x: number, d = 1) => x.toFixed(d);
const int = (x: number) => Math.round(x).toLocaleString('en-US');
const mb = (bytes: number) => f(bytes / 1e6, 2);
/** `n` and its noun, plural unless n is 1. */
const count = (n: number, noun: string) => `${int(n)} ${noun}${n === 1 ? '' : 's'}`;
/** Met or missed, said plainly: "met", or "**missed**" with how far off the worst case is. */
const verdict = (ok: boolean, off: string) => (ok ? 'met' : `**missed** (${off})`);

/** Where and when a result was measured, as one sentence. */
function measuredOn(r: BenchResult, command: string): string {
  const m = r.machine;
  const when = `${r.date.slice(0, 10)} ${r.date.slice(11, 16)} UTC`;
  if (!m) return `\`${command}\`, ${when}.`;
  const load = (l: number[]) => l.map((x) => f(x, 2)).join(' / ');
  // The bench itself keeps about the cores busy; the 1-minute averages, and the 5-minute one for a bench that
  // long, past twice the cores mean other work shared the machine.
  const busiest = Math.max(m.loadavg_start[0]!, m.loadavg_end[0]!, m.seconds >= 300 ? m.loadavg_end[1]! : 0);
  return (
    `\`${command}\`, ${when}, build ${m.commit ?? 'unknown'}: ${m.cpus} cores (${m.cpu_model.trim()}), Node ${m.node}, ` +
    `load average (1 / 5 / 15 min) ${load(m.loadavg_start)} as it began and ${load(m.loadavg_end)} as it ended (${int(m.seconds)} s).` +
    (busiest > 2 * m.cpus
      ? ` Other work loaded the machine meanwhile (load average up to ${f(busiest, 2)} on ${m.cpus} cores): a quiet machine measures faster.`
      : '')
  );
}

// --- /score-plan, in process and over HTTP (bench/score-plan.ts) ---
interface ScorePlanFigures {
  batch: string;
  plans: number;
  rounds: number;
  fresh: {
    body_bytes: { p50: number };
    json_parse_ms: { p50: number };
    in_process_ms: { p50: number; p99: number };
    in_process_plans_per_s: number;
    score_to_parse_ratio: { p50: number; p10: number; p90: number };
    sentences: number;
    word_reading_to_parse_ratio: { p50: number; p10: number; p90: number };
    http_requests: number;
    http_ms: { p50: number; p99: number };
    http_plans_per_s: number;
    http_stages_ms: Record<'read' | 'judge' | 'store' | 'compose' | 'total' | 'outside', number>;
    response_bytes: number;
  };
  template: {
    body_bytes: number;
    json_parse_ms: { p50: number };
    in_process_ms: { p50: number; p99: number };
    score_to_parse_ratio: { p50: number; p10: number; p90: number };
    http_requests: number;
    http_ms: { p50: number; p99: number };
  };
  http_4096: { body_bytes: number; rounds: number; ms: { p50: number }; per_plan_ratio: number };
  http_after_pause: { pause_ms: number; rounds: number; ms: { p50: number; max: number } };
  http_after_collection: { pause_ms: number; rounds: number; ms: { p50: number; max: number } };
  http_cold_client: { requests: number; client_warm_up: number; ms: { p50: number } };
}
function renderScorePlan(r: BenchResult<ScorePlanFigures>): string {
  const s = r.figures;
  const fr = s.fresh;
  const spread = (x: { p50: number; p10: number; p90: number }) => `${f(x.p50, 2)} (p10–p90 ${f(x.p10, 2)}–${f(x.p90, 2)})`;
  return [
    measuredOn(r, 'npm run bench'),
    '',
    '| figure | measured | target | |',
    '| --- | --- | --- | --- |',
    `| **fresh text**: scoring ÷ \`JSON.parse\` (of the body and each completion), in process, p50 of ${s.rounds} interleaved rounds, a new ${s.batch} batch (${mb(fr.body_bytes.p50)} MB) each round | ${spread(fr.score_to_parse_ratio)}; scoring p50 ${f(fr.in_process_ms.p50)} ms, p99 ${f(fr.in_process_ms.p99)} ms (${int(fr.in_process_plans_per_s)} plans/s), parsing ${f(fr.json_parse_ms.p50, 2)} ms | ≤ 5 | ${verdict(fr.score_to_parse_ratio.p50 <= 5, `${f(fr.score_to_parse_ratio.p50, 2)}`)} |`,
    `| of which the word-level reading alone: every one of the batch's ${int(fr.sentences)} sentences lowercased, split into words with each word's kind and stem found in the service's table of known words, its phase cues found; ÷ \`JSON.parse\` | ${spread(fr.word_reading_to_parse_ratio)} | | |`,
    `| **fresh text** over HTTP, one fresh client process once it has sent ${s.http_cold_client.client_warm_up} requests, each of ${fr.http_requests} ${s.batch} bodies sent once (${mb(fr.response_bytes)} MB out) | p50 ${f(fr.http_ms.p50)} ms, p99 ${f(fr.http_ms.p99)} ms (${int(fr.http_plans_per_s)} plans/s) | p50 ≤ 50 ms | ${verdict(fr.http_ms.p50 <= 50, `${f(fr.http_ms.p50)} ms`)} |`,
    `| where those requests' time went (\`Server-Timing\`; each stage's median over them) | body read ${f(fr.http_stages_ms.read)}, judged ${f(fr.http_stages_ms.judge)}, run store ${f(fr.http_stages_ms.store)}, composed ${f(fr.http_stages_ms.compose)}; in the service ${f(fr.http_stages_ms.total)} ms in all, outside it (the wire, and the client writing the body and reading the answer) ${f(fr.http_stages_ms.outside)} ms | | |`,
    `| the template batch (its sentences repeat across plans, so the reading caches hit; ${mb(s.template.body_bytes)} MB): scoring ÷ \`JSON.parse\`, in process | ${spread(s.template.score_to_parse_ratio)}; scoring p50 ${f(s.template.in_process_ms.p50)} ms | | |`,
    `| the template batch over HTTP, ${s.template.http_requests} requests | p50 ${f(s.template.http_ms.p50)} ms, p99 ${f(s.template.http_ms.p99)} ms | | |`,
    `| over HTTP, 512 × 8 = 4,096 template plans (${mb(s.http_4096.body_bytes)} MB body), ${s.http_4096.rounds} requests taking turns with ${s.batch} | p50 ${f(s.http_4096.ms.p50)} ms; per plan ${f(s.http_4096.per_plan_ratio, 2)}× the ${s.batch} request's (median over the rounds' pairs) | ≤ 1.1× | ${verdict(s.http_4096.per_plan_ratio <= 1.1, `${f(s.http_4096.per_plan_ratio, 2)}×`)} |`,
    `| the first requests of each fresh client (Node's fetch sends a large body slowly in a new process), ${s.http_cold_client.requests} requests | p50 ${f(s.http_cold_client.ms.p50)} ms | | |`,
    `| over HTTP, the template ${s.batch}, each of ${s.http_after_pause.rounds} requests after ${f(s.http_after_pause.pause_ms / 1000, 0)} s of rest (a trainer's step) | p50 ${f(s.http_after_pause.ms.p50)} ms, max ${f(s.http_after_pause.ms.max)} ms | | |`,
    `| the same after ${f(s.http_after_collection.pause_ms / 1000, 0)} s of rest, past \`IDLE_COLLECT_MS\` (every thread has given back what the traffic grew, and the request grows it again) | p50 ${f(s.http_after_collection.ms.p50)} ms, max ${f(s.http_after_collection.ms.max)} ms | | |`,
  ].join('\n');
}

/** The README's short form: fresh text first, the template batch after. */
function renderScorePlanSummary(r: BenchResult<ScorePlanFigures>): string {
  const s = r.figures;
  const fr = s.fresh;
  return [
    measuredOn(r, 'npm run bench'),
    '',
    '| `/score-plan`, 64 groups × 8 plans | measured | target | |',
    '| --- | --- | --- | --- |',
    `| fresh text (every sentence new, as a policy's samples are): scoring ÷ \`JSON.parse\`, in process | ${f(fr.score_to_parse_ratio.p50, 2)} (${f(fr.in_process_ms.p50)} ms) | ≤ 5 | ${verdict(fr.score_to_parse_ratio.p50 <= 5, f(fr.score_to_parse_ratio.p50, 2))} |`,
    `| fresh text over HTTP, p50 | ${f(fr.http_ms.p50)} ms | ≤ 50 ms | ${verdict(fr.http_ms.p50 <= 50, `${f(fr.http_ms.p50)} ms`)} |`,
    `| the template batch (repeated sentences, cached readings): in process ÷ \`JSON.parse\`; over HTTP, p50 | ${f(s.template.score_to_parse_ratio.p50, 2)}; ${f(s.template.http_ms.p50)} ms | | |`,
  ].join('\n');
}

// --- run bookkeeping (bench/runs.ts) ---
interface RunsFigures {
  engine: string;
  batch: string;
  stateless_ms: { p50: number; p99: number };
  bookkeeping_ms: { p50: number; p99: number };
  bookkeeping_overhead_p50: number;
  record_512_plan_request_ms: { p50: number; p99: number };
  finalize_512_plan_step_ms: { p50: number; p99: number };
  ten_thousand_steps: { seconds: number; database_bytes: number; bytes_per_step: number };
  over_http_with_a_key: { rounds: number; stateless_ms: { p50: number }; run_ms: { p50: number }; run_over_stateless: number };
}
function renderRuns(r: BenchResult<RunsFigures>): string {
  const s = r.figures;
  const pct = s.bookkeeping_overhead_p50 * 100;
  return [
    measuredOn(r, s.engine === 'sqlite' ? 'npm run bench' : `npm run bench:runs:${s.engine}`),
    '',
    `| figure (${s.engine}, in process) | measured |`,
    '| --- | --- |',
    `| ${s.batch}, stateless (\`run_id: null\`) vs. with a run, one step per request (each request finalizes the previous step), p50 | ${f(s.stateless_ms.p50)} vs ${f(s.bookkeeping_ms.p50)} ms (${pct >= 0 ? '+' : ''}${f(pct)} %) |`,
    `| recording a 512-plan request (one transaction), p50 / p99 | ${f(s.record_512_plan_request_ms.p50, 2)} / ${f(s.record_512_plan_request_ms.p99, 2)} ms |`,
    `| finalizing a 512-plan step (sorted means, EMA, weights, one transaction), p50 / p99 | ${f(s.finalize_512_plan_step_ms.p50, 2)} / ${f(s.finalize_512_plan_step_ms.p99, 2)} ms |`,
    `| state after 10,000 steps of one run | ${f(s.ten_thousand_steps.database_bytes / 2 ** 20, 2)} MiB (${int(s.ten_thousand_steps.bytes_per_step)} B a step), written in ${f(s.ten_thousand_steps.seconds, 2)} s |`,
    '',
    `| figure (${s.engine}, over HTTP: the service as \`npm start\` runs it, API keys on, a fresh client process, ${s.over_http_with_a_key.rounds} requests each, taking turns) | measured | target |`,
    '| --- | --- | --- |',
    `| ${s.batch}, stateless vs. into a run, each request a new step under an \`Idempotency-Key\` of its own, p50 | ${f(s.over_http_with_a_key.stateless_ms.p50)} vs ${f(s.over_http_with_a_key.run_ms.p50)} ms (${f(s.over_http_with_a_key.run_over_stateless, 2)}×) | ≤ ${s.engine === 'sqlite' ? '1.10' : '1.15'}× |`,
  ].join('\n');
}

// --- replicas on one PostgreSQL (bench/replicas.ts) ---
interface ReplicasFigures {
  seconds: number;
  requests_per_step: number;
  batch: string;
  one_process: { steps_per_s: number; requests_per_s: number; step_p50_ms: number };
  three_replicas: { steps_per_s: number; requests_per_s: number; step_p50_ms: number };
  ratio: number;
}
function renderReplicas(r: BenchResult<ReplicasFigures>): string {
  const s = r.figures;
  const row = (name: string, x: ReplicasFigures['one_process']) => `| ${name} | ${f(x.requests_per_s)} | ${f(x.steps_per_s, 2)} | ${int(x.step_p50_ms)} ms |`;
  return [
    `${measuredOn(r, 'npm run bench:replicas')} Steps of ${s.requests_per_step} concurrent ${s.batch} requests into one run, ${s.seconds} s each.`,
    '',
    '| services | requests/s | steps/s | step p50 |',
    '| --- | --- | --- | --- |',
    row('one process', s.one_process),
    row('three replicas on one PostgreSQL', s.three_replicas),
    '',
    `Three replicas ÷ one process: ${f(s.ratio, 2)}×.`,
  ].join('\n');
}

// --- options.detail (bench/detail.ts) ---
interface DetailFigures {
  batch: string;
  rounds: number;
  full: { p50_ms: number; response_bytes: number; bytes_per_plan: number };
  rewards: { p50_ms: number; response_bytes: number; bytes_per_plan: number };
}
function renderDetail(r: BenchResult<DetailFigures>): string {
  const s = r.figures;
  const row = (name: string, reader: string, x: DetailFigures['full']) =>
    `| \`${name}\` | ${reader} | ${int(x.response_bytes / 1000)} KB | ${int(x.bytes_per_plan)} B | ${f(x.p50_ms)} ms |`;
  return [
    `${measuredOn(r, 'npm run bench:detail')} \`/score-plan\` ${s.batch} of fresh text (a new batch each round) over HTTP, one client, the two levels taking turns on the same batch, ${s.rounds} requests each; sizes are medians.`,
    '',
    '| `detail` | who asks for it | response | per plan | p50 |',
    '| --- | --- | --- | --- | --- |',
    row('full', 'the default: Swagger UI, the dashboard, scripts reading the components', s.full),
    row('rewards', 'the TRL and verl adapters (they read the reward, the raw axes, the gate, the gaming flags and aboutness)', s.rewards),
  ].join('\n');
}

// --- keys, rate limit and metrics (bench/exposure.ts) ---
interface ExposureFigures {
  rounds: number;
  health_requests: number;
  score_requests: number;
  batch: string;
  configurations: Record<string, { health_p50_ms: number; score_p50_ms: number }>;
}
function renderExposure(r: BenchResult<ExposureFigures>): string {
  const s = r.figures;
  return [
    `${measuredOn(r, 'npm run bench:exposure')} One request at a time, p50 of ${int(s.health_requests)} \`/health\` and ${s.score_requests} \`/score-plan\` ${s.batch} requests, median of ${s.rounds} rounds, configurations taking turns.`,
    '',
    '| configuration | `GET /health` p50 | `/score-plan` p50 |',
    '| --- | --- | --- |',
    ...Object.entries(s.configurations).map(([name, c]) => `| ${name} | ${f(c.health_p50_ms, 3)} ms | ${f(c.score_p50_ms)} ms |`),
  ].join('\n');
}

// --- /verify-turn (bench/verify-turn.ts) ---
interface VerifyTurnFigures {
  verify_turn: {
    candidates: number;
    context_tokens: number;
    rounds: number;
    cache_hits: number;
    server_ms: { p50: number; p99: number };
    client_ms: { p50: number; p99: number };
    encoder_floor_ms: { p50: number };
    server_over_floor: number;
  }[];
}
function renderVerifyTurn(r: BenchResult<VerifyTurnFigures>): string {
  const rows = r.figures.verify_turn;
  return [
    `${measuredOn(r, 'npm run bench')} A ${int(rows[0]!.context_tokens)}-token dialogue, ${rows[0]!.rounds} rounds per row; encoder cache hits over the measured rounds: ${rows.map((x) => x.cache_hits).join(', ')}.`,
    '',
    '| candidates | server p50 | server p99 | round trip p50 | encoder floor p50 | server ÷ floor (median of rounds) | target |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (x) =>
        `| ${x.candidates} | ${f(x.server_ms.p50)} ms | ${f(x.server_ms.p99)} ms | ${f(x.client_ms.p50)} ms | ${f(x.encoder_floor_ms.p50)} ms | ${f(x.server_over_floor, 2)} | ${x.candidates === 20 ? 'server p50 < 60 ms; ≤ 1.15 × floor' : ''} |`,
    ),
  ].join('\n');
}

// --- /evaluate-dialogue (bench/evaluate-dialogue.ts) ---
interface EvaluateDialogueFigures {
  turns: number;
  tutorial_steps: number;
  rounds: number;
  metrics: { metric: string; p50_ms: number; per_s: number }[];
  http_ms: { p50: number; p99: number };
}
const METRIC_NAMES: Record<string, string> = {
  'question+completion+diversity': 'Question + Completion + Diversity',
  bleu: 'BLEU (sentence, 13a, exp)',
  rouge: 'ROUGE-1/2/L/Lsum, with and without stemming',
  meteor: 'METEOR (after the one-time WordNet load)',
  token_match: 'token match (encoder token states + greedy matching)',
};
function renderEvaluateDialogue(r: BenchResult<EvaluateDialogueFigures>): string {
  const s = r.figures;
  const d = (ms: number) => f(ms, ms < 10 ? 2 : 1);
  return [
    `${measuredOn(r, 'npm run bench')} ${s.turns} turns over a ${s.tutorial_steps}-step tutorial, p50 of ${s.rounds} rounds.`,
    '',
    '| metric | p50 | dialogues/s |',
    '| --- | --- | --- |',
    ...s.metrics.map((m) => `| ${METRIC_NAMES[m.metric] ?? m.metric} | ${d(m.p50_ms)} ms | ${int(m.per_s)} |`),
    `| the whole request over HTTP | ${d(s.http_ms.p50)} ms (p99 ${d(s.http_ms.p99)}) | ${f(1000 / s.http_ms.p50)} |`,
  ].join('\n');
}

// --- the sentence encoder against TensorFlow.js (bench/encoder.ts) ---
interface EncoderRun {
  texts_per_s: number;
  batch_ms_p50: number;
  batch_ms_p99: number;
}
interface EncoderFigures {
  sentences: number;
  rounds: number;
  batch_1: { onnx: EncoderRun; tfjs_wasm: EncoderRun; speedup: number };
  batch_32: { onnx: EncoderRun; tfjs_wasm: EncoderRun; speedup: number };
  rss_mib: { tfjs_wasm_model: number; onnx_encoder: number; process_after_both: number };
}
function renderEncoder(r: BenchResult<EncoderFigures>): string {
  const s = r.figures;
  return [
    `${measuredOn(r, 'npm run bench')} ${int(s.sentences)} sentences, ${s.rounds} rounds, tokenization included on both sides.`,
    '',
    '| batch | ONNX (texts/s, batch p50) | TensorFlow.js WASM (texts/s, batch p50) | ONNX ÷ TF.js | target |',
    '| --- | --- | --- | --- | --- |',
    ...([1, 32] as const).map((b) => {
      const x = s[`batch_${b}`];
      return `| ${b} | ${int(x.onnx.texts_per_s)}, ${f(x.onnx.batch_ms_p50, 2)} ms | ${int(x.tfjs_wasm.texts_per_s)}, ${f(x.tfjs_wasm.batch_ms_p50, 2)} ms | ${f(x.speedup, 2)}× | ${b === 32 ? '≥ 2×' : ''} |`;
    }),
    '',
    `Resident memory added by loading: the ONNX encoder ${int(s.rss_mib.onnx_encoder)} MiB, the TF.js WASM model ${int(s.rss_mib.tfjs_wasm_model)} MiB.`,
  ].join('\n');
}

// --- /trace-knowledge (bench/trace-knowledge.ts) ---
interface TraceKnowledgeFigures {
  kcs: number;
  turns: number;
  rounds: number;
  ms: Record<string, { p50: number; p99: number }>;
}
const TRACE_MODES: Record<string, string> = {
  incremental: 'the per-turn call (the previous estimate and one new turn)',
  resent: 'the whole dialogue sent again',
  'new dialogue': 'a dialogue of new turns for a known task',
  cold: 'everything new (task and dialogue)',
};
function renderTraceKnowledge(r: BenchResult<TraceKnowledgeFigures>): string {
  const s = r.figures;
  return [
    `${measuredOn(r, 'npm run bench')} ${s.kcs} KCs × ${s.turns} turns, over HTTP, ${s.rounds} rounds per row.`,
    '',
    '| call | p50 | p99 | target |',
    '| --- | --- | --- | --- |',
    ...Object.keys(TRACE_MODES)
      .filter((k) => s.ms[k])
      .map((k) => `| ${TRACE_MODES[k]} | ${f(s.ms[k]!.p50)} ms | ${f(s.ms[k]!.p99)} ms | p50 < 50 ms |`),
  ].join('\n');
}

// --- the worker pool under load (bench/concurrency.ts) ---
interface Load {
  rps: number;
  cores_service: number;
  cores_clients: number;
  cores_machine: number;
  cores_by_thread: Record<'main' | 'workers' | 'v8_helpers' | 'other', number>;
}
interface ClientThroughput {
  one_client: Load;
  four_clients: Load;
  ratio: number;
  ratios: number[];
}
interface MachineScaling {
  one_thread_per_s: number;
  two_threads_per_s: number;
  ratio: number;
  ratios: number[];
}
interface ConcurrencyFigures {
  workers: string;
  rounds: number;
  rss_idle_mb: number;
  'machine scaling, 8×8 scored in process': MachineScaling;
  'machine ceiling, pure CPU': MachineScaling;
  health_during_heavy: Record<string, { health_max_ms: number; health_p99_ms: number; request_ms: number; probes: number }>;
  'score-plan 8×8 throughput': Record<'node:http' | 'fetch', ClientThroughput>;
  'score-plan 8×8, detail rewards throughput': Record<'node:http' | 'fetch', ClientThroughput>;
  'verify-turn N=20 throughput': Record<'node:http' | 'fetch', ClientThroughput>;
  'score-plan 64×8 one client p50 ms': Record<string, { p50: number; client_cpu_ms_per_request: number }>;
  'answered after the deadline, ms past it': number;
  workers_replaced_before_soak: number;
  soak: {
    seconds: number;
    connections: number;
    requests: number;
    rss_peak_mb: number;
    rss_end_mb: number;
    rss_30s_after_mb: number;
    workers_replaced_since_it_began: number;
  };
}
type C = BenchResult<ConcurrencyFigures>;
const heavyName = (name: string) => {
  const [route, what] = name.split(', ');
  return `\`/${route}\`, ${what}`;
};
const healthCell = (c: ConcurrencyFigures) => {
  const h = Object.values(c.health_during_heavy);
  return `${f(Math.max(...h.map((x) => x.health_max_ms)))} ms (p99 ≤ ${f(Math.max(...h.map((x) => x.health_p99_ms)))})`;
};
const ratioCell = (t: Record<'node:http' | 'fetch', ClientThroughput>) =>
  (['node:http', 'fetch'] as const)
    .map((via) => `${via} ${f(t[via].ratio, 2)}× (${f(t[via].one_client.rps)} → ${f(t[via].four_clients.rps)} req/s)`)
    .join('; ');
const BIG_CLIENTS: Record<string, string> = {
  'node:http': 'node:http',
  fetch: 'fetch',
  'node:http, a run and an Idempotency-Key': 'node:http into a run with a key',
};
const bigCell = (c: ConcurrencyFigures) =>
  Object.entries(c['score-plan 64×8 one client p50 ms'])
    .map(([k, v]) => `${BIG_CLIENTS[k] ?? k} ${f(v.p50)}`)
    .join('; ');
const soakCell = (s: ConcurrencyFigures['soak'], idle: number) =>
  `${idle} / ${int(s.rss_peak_mb)} / ${int(s.rss_30s_after_mb)} MB (${int(s.requests)} requests in ${int(s.seconds)} s at ${s.connections} connections)`;

/**
 * \`/score-plan\` plans per second at saturation (four closed-loop clients) ÷ the machine's ceiling for them:
 * one thread's in-process rate of the same batches times what a second core adds to pure arithmetic.
 */
type SaturationRow = 'score-plan 8×8 throughput' | 'score-plan 8×8, detail rewards throughput';
const saturationShare = (c: ConcurrencyFigures, via: 'node:http' | 'fetch', row: SaturationRow = 'score-plan 8×8 throughput') =>
  c[row][via].four_clients.rps / (c['machine scaling, 8×8 scored in process'].one_thread_per_s * c['machine ceiling, pure CPU'].ratio);
const saturationCell = (c: ConcurrencyFigures, row: SaturationRow = 'score-plan 8×8 throughput') =>
  (['node:http', 'fetch'] as const).map((via) => `${via} ${f(saturationShare(c, via, row), 2)} (${int(c[row][via].four_clients.rps * 64)} plans/s)`).join('; ');
/** The same ceiling's share that the scoring alone reaches on two threads in process: no HTTP, no client. */
const scoringShare = (c: ConcurrencyFigures) =>
  c['machine scaling, 8×8 scored in process'].two_threads_per_s /
  (c['machine scaling, 8×8 scored in process'].one_thread_per_s * c['machine ceiling, pure CPU'].ratio);
const rounds = (m: MachineScaling) => `rounds ${m.ratios.map((x) => `${f(x, 2)}×`).join(', ')}`;

function renderConcurrency(r: C): string {
  const c = r.figures;
  const m = c['machine scaling, 8×8 scored in process'];
  const pure = c['machine ceiling, pure CPU'];
  const cores = (name: string, t: Record<'node:http' | 'fetch', ClientThroughput>) =>
    (['node:http', 'fetch'] as const).map((via) => {
      const x = t[via];
      const l = (y: Load) => `${f(y.cores_service, 2)} / ${f(y.cores_clients, 2)} / ${f(y.cores_machine, 2)}`;
      return `| ${name}, ${via} | ${x.ratios.map((y) => `${f(y, 2)}×`).join(', ')} | ${l(x.one_client)} | ${l(x.four_clients)} |`;
    });
  // Where a request's CPU goes at saturation, against what one thread spends scoring the batch in process.
  const threads = (name: string, t: Record<'node:http' | 'fetch', ClientThroughput>) =>
    (['node:http', 'fetch'] as const).map((via) => {
      const y = t[via].four_clients;
      const ms = (cores: number) => f((cores / y.rps) * 1000, 2);
      const b = y.cores_by_thread;
      return `| ${name}, ${via} | ${ms(y.cores_service)} | ${ms(b.main)} | ${ms(b.workers)} | ${ms(b.v8_helpers)} | ${ms(b.other)} | ${ms(y.cores_clients)} |`;
    });
  return [
    `${measuredOn(r, 'npm run bench:concurrency')} Workers: ${c.workers}; each figure the median of ${c.rounds} rounds, except the \`/health\` p99s, each taken over the probes of all rounds together (so one can exceed its max, the median of the rounds' largest probes).`,
    '',
    '| figure | measured | target |',
    '| --- | --- | --- |',
    ...Object.entries(c.health_during_heavy).map(
      ([name, h]) =>
        `| \`/health\` max (p99) while ${heavyName(name)} runs (${int(h.request_ms)} ms; ${h.probes} probes) | ${f(h.health_max_ms)} ms (${f(h.health_p99_ms)}) | < 100 ms (p99 < 20) |`,
    ),
    `| \`/score-plan\` 8×8 throughput, 4 clients ÷ 1 (one client's batch already goes to both workers) | ${ratioCell(c['score-plan 8×8 throughput'])} | |`,
    `| \`/verify-turn\` N = 20 throughput, 4 clients ÷ 1 | ${ratioCell(c['verify-turn N=20 throughput'])} | ≥ 1.6× |`,
    `| \`/score-plan\` 64×8, one client, p50 | ${bigCell(c)} ms | < 60 ms |`,
    `| a request past its \`deadline_ms\` of 1,000 ms | 504 at +${f(c['answered after the deadline, ms past it'])} ms | within 1 s |`,
    `| RSS idle / peak in the soak / 30 s after | ${soakCell(c.soak, c.rss_idle_mb)} | ≤ 600 MB |`,
    `| \`/score-plan\` 8×8 plans per second at saturation (4 clients) ÷ the machine's ceiling (one thread's in-process rate, ${f(c['machine scaling, 8×8 scored in process'].one_thread_per_s * 64, 0)} plans/s, × two pure-CPU threads ÷ one, ${f(pure.ratio, 2)}×: ${rounds(pure)}) | ${saturationCell(c)} | ≥ 0.85 |`,
    `| the same with \`detail: "rewards"\`, as the trainer adapters ask | ${saturationCell(c, 'score-plan 8×8, detail rewards throughput')} | ≥ 0.85 |`,
    `| the same ceiling's share two threads reach scoring in process (no HTTP, no client): the most the service could | ${f(scoringShare(c), 2)} | |`,
    `| two threads ÷ one, 8×8 batches scored in process (the scoring's own scaling) | ${f(m.ratio, 2)}× (${f(m.one_thread_per_s)} → ${f(m.two_threads_per_s)} batches/s; ${rounds(m)}) | |`,
    '',
    `Workers replaced for memory before the soak: ${c.workers_replaced_before_soak}; during and after it: ${c.soak.workers_replaced_since_it_began}.`,
    'Cores kept busy during the throughput figures (service / clients / whole machine):',
    '',
    '| figure | 4 ÷ 1 per round | one client | four clients |',
    '| --- | --- | --- | --- |',
    ...cores('`/score-plan` 8×8', c['score-plan 8×8 throughput']),
    ...cores('`/score-plan` 8×8, `detail: "rewards"`', c['score-plan 8×8, detail rewards throughput']),
    ...cores('`/verify-turn` N = 20', c['verify-turn N=20 throughput']),
    '',
    `CPU per request at saturation (four clients), ms, by the service's threads, against ${f(1000 / m.one_thread_per_s, 2)} ms for one thread scoring the batch in process:`,
    '',
    '| figure | service | main thread | worker threads | V8 helpers (GC, compiling) | other | clients |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...threads('`/score-plan` 8×8', c['score-plan 8×8 throughput']),
    ...threads('`/score-plan` 8×8, `detail: "rewards"`', c['score-plan 8×8, detail rewards throughput']),
  ].join('\n');
}

/** The README's short form of the same result. */
function renderConcurrencySummary(r: C): string {
  const c = r.figures;
  const h = Object.values(c.health_during_heavy);
  const healthMax = Math.max(...h.map((x) => x.health_max_ms));
  const healthP99 = Math.max(...h.map((x) => x.health_p99_ms));
  const lowest = (t: Record<'node:http' | 'fetch', ClientThroughput>) => Math.min(t['node:http'].ratio, t.fetch.ratio);
  const saturation = Math.min(saturationShare(c, 'node:http'), saturationShare(c, 'fetch'));
  const rewardsRow = 'score-plan 8×8, detail rewards throughput';
  const saturationRewards = Math.min(saturationShare(c, 'node:http', rewardsRow), saturationShare(c, 'fetch', rewardsRow));
  const verifyRatio = lowest(c['verify-turn N=20 throughput']);
  const bigP50 = Math.max(...Object.values(c['score-plan 64×8 one client p50 ms']).map((v) => v.p50));
  const late = c['answered after the deadline, ms past it'];
  const rssPeak = Math.max(c.rss_idle_mb, c.soak.rss_peak_mb, c.soak.rss_30s_after_mb);
  return [
    measuredOn(r, 'npm run bench:concurrency'),
    '',
    '| figure | measured | target | |',
    '| --- | --- | --- | --- |',
    `| \`/health\` max (p99) during the heaviest requests (a 200,000-row fit, 4,096 plans, …) | ≤ ${healthCell(c)} | < 100 ms (p99 < 20) | ${verdict(healthMax < 100 && healthP99 < 20, `p99 ${f(healthP99)} ms`)} |`,
    `| \`/score-plan\` 8×8 plans/s at saturation ÷ the machine's pure-CPU ceiling | ${saturationCell(c)} | ≥ 0.85 | ${verdict(saturation >= 0.85, f(saturation, 2))} |`,
    `| the same with \`detail: "rewards"\`, as the trainer adapters ask | ${saturationCell(c, 'score-plan 8×8, detail rewards throughput')} | ≥ 0.85 | ${verdict(saturationRewards >= 0.85, f(saturationRewards, 2))} |`,
    `| \`/verify-turn\` N = 20, 4 clients ÷ 1 client | ${ratioCell(c['verify-turn N=20 throughput'])} | ≥ 1.6× | ${verdict(verifyRatio >= 1.6, `${f(verifyRatio, 2)}×`)} |`,
    `| \`/score-plan\` 64×8, one client, p50 | ${bigCell(c)} ms | < 60 ms | ${verdict(bigP50 < 60, `${f(bigP50)} ms`)} |`,
    `| a request past its deadline | 504 at +${f(late)} ms | within 1 s | ${verdict(late < 1000, `+${f(late)} ms`)} |`,
    `| RSS idle / peak / 30 s after a soak | ${soakCell(c.soak, c.rss_idle_mb)} | ≤ 600 MB | ${verdict(rssPeak <= 600, `${int(rssPeak)} MB`)} |`,
  ].join('\n');
}

// --- heavy requests beside light ones (bench/heavy-lane.ts) ---
interface Latency {
  samples: number;
  median_ms: number;
  max_ms: number;
}
interface HeavyLaneFigures {
  rounds: number;
  dense_request: { bytes: number; plans: number; steps: number; distances: number };
  dense_alone: { median_ms: number; inexact_distances: number };
  light_idle: Record<string, Latency>;
  light_during_two_dense: Record<string, Latency>;
  dense_during_two_dense: { median_ms: number; max_ms: number };
}
function renderHeavyLane(r: BenchResult<HeavyLaneFigures>): string {
  const s = r.figures;
  const d = s.dense_request;
  const cell = (l: Latency) => `${f(l.median_ms)} / ${f(l.max_ms)} ms (${int(l.samples)})`;
  return [
    measuredOn(r, 'npm run bench:heavy') +
      ` The heavy request: \`/evaluate-plan\` with ${d.plans} random dense plans of ${d.steps} steps and a gold plan (${int(d.bytes)} bytes, ${d.distances} distances), median of ${s.rounds} rounds.`,
    '',
    '| figure | measured |',
    '| --- | --- |',
    `| the heavy request alone | ${f(s.dense_alone.median_ms / 1000, 2)} s, ${s.dense_alone.inexact_distances} of ${d.distances} distances inexact (with bounds) |`,
    `| each of two heavy requests sent together, median / max | ${f(s.dense_during_two_dense.median_ms / 1000, 2)} / ${f(s.dense_during_two_dense.max_ms / 1000, 2)} s |`,
    ...Object.keys(s.light_idle).map(
      (route) =>
        `| \`${route}\` median / max (requests): idle vs. beside two heavy requests | ${cell(s.light_idle[route]!)} vs. ${cell(s.light_during_two_dense[route]!)} |`,
    ),
  ].join('\n');
}

// --- liveness probes under floods and big requests (bench/probes.ts) ---
interface ProbeLatency {
  probes: number;
  failed: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}
interface ProbesFigures {
  probe: string;
  at_rest: ProbeLatency;
  idle_keep_alive: ProbeLatency & { connections: number; client_addresses: number; unanswered: number; open_before_probing: number };
  score_plan_4x4096: ProbeLatency & { rounds: number; requests: number; body_mb: number; statuses: Record<string, number>; request_p50_ms: number };
}
function renderProbes(r: BenchResult<ProbesFigures>): string {
  const s = r.figures;
  const k = s.idle_keep_alive;
  const b = s.score_plan_4x4096;
  const row = (what: string, p: ProbeLatency) =>
    `| ${what} | ${int(p.probes)} | ${int(p.failed)} | ${f(p.p50_ms, 2)} | ${f(p.p99_ms, 2)} | ${f(p.max_ms, 2)} |`;
  const statuses = Object.entries(b.statuses)
    .map(([code, n]) => `${int(n)} × ${code}`)
    .join(', ');
  return [
    `${measuredOn(r, 'npm run bench:probes')} Probe: ${s.probe}.`,
    '',
    '| while | probes | failed | p50 ms | p99 ms | max ms |',
    '| --- | --- | --- | --- | --- | --- |',
    row('at rest', s.at_rest),
    row(
      `${int(k.connections)} idle keep-alive connections from ${k.client_addresses} addresses (${int(k.open_before_probing)} kept open, ${int(k.unanswered)} unanswered)`,
      k,
    ),
    row(
      `4 concurrent \`/score-plan\` of 4,096 plans (${f(b.body_mb, 2)} MB each; ${b.rounds} rounds: ${statuses}, request p50 ${f(b.request_p50_ms / 1000, 1)} s)`,
      b,
    ),
  ].join('\n');
}

// --- bursts of single-sample OpenRLHF requests (bench/openrlhf-burst.ts) ---
interface OpenRlhfBurstRun {
  wall_s: number;
  cpu_s: { service: number; clients: number };
  none: number;
  tries: Record<string, number>;
  sample_ms: { p50: number; p99: number; max: number };
  counted_plans: number;
  counted_requests: number;
}
interface OpenRlhfBurstFigures {
  upstream: string;
  aiohttp: string;
  python: string;
  processes: number;
  per_process: number;
  samples: number;
  samples_per_step: number;
  tries_per_sample: number;
  runs: OpenRlhfBurstRun[];
}
function renderOpenRlhfBurst(r: BenchResult<OpenRlhfBurstFigures>): string {
  const s = r.figures;
  // What the tries saw: statuses first (an error's body code beside it), then failures without a status.
  const seen = (k: string) => {
    const [status, code] = k.split(' ');
    return /^\d+$/.test(status!) ? `${status}${code ? ` \`${code}\`` : ''}` : `\`${k}\``;
  };
  const tries = (t: Record<string, number>) =>
    Object.entries(t)
      .sort(([a], [b]) => Number(!/^\d/.test(a)) - Number(!/^\d/.test(b)) || a.localeCompare(b))
      .map(([k, n]) => `${int(n)} × ${seen(k)}`)
      .join(', ');
  return [
    `${measuredOn(r, 'npm run bench:openrlhf-burst')} ${s.processes} processes × ${int(s.per_process)} single-sample requests each, all sent at once as ` +
      `${s.upstream}'s \`SingleTurnAgentExecutor\` sends them (aiohttp ${s.aiohttp} on Python ${s.python}: a session per try, ${s.tries_per_sample} tries 1 s apart, ` +
      `reward None when all fail), into one run with \`samples_per_step\` ${int(s.samples_per_step)}; a fresh run and fresh plans each burst. ` +
      'The clients share the machine with the service.',
    '',
    `| burst | reward None | what the tries saw | sample p50 / p99 (first try to final answer) | wall | CPU: service / clients | plans counted (of ${int(s.samples)}) |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...s.runs.map(
      (x, i) =>
        `| ${i + 1} | ${int(x.none)} | ${tries(x.tries)} | ${f(x.sample_ms.p50 / 1000, 2)} / ${f(x.sample_ms.p99 / 1000, 2)} s | ${f(x.wall_s)} s | ${f(x.cpu_s.service)} / ${f(x.cpu_s.clients)} s | ${int(x.counted_plans)} |`,
    ),
  ].join('\n');
}

// --- two builds in turns (scripts/compare-builds.ts) ---
type Pair = { before: { median: number; runs: number[] }; after: { median: number; runs: number[] } };
interface CompareBuildsFigures {
  repetitions: number;
  in_process_rounds: number;
  http_rounds: number;
  loadavg_1min: number[];
  builds: { before: string; after: string };
  scoring_over_json_parse_64x8: { fresh: Pair; template: Pair };
  http_64x8_fresh_p50_ms: Pair;
  python_trl_call_over_json_floor: Pair;
  python_calls: number;
  answer_bytes_per_plan_64x8: { default_detail: Pair; trl_client: Pair };
  rss_mb: Record<'before' | 'after', { idle: number; peak: number; after_30s: number }>;
}

function renderCompareBuilds(r: BenchResult<CompareBuildsFigures>): string {
  const s = r.figures;
  const fresh = s.scoring_over_json_parse_64x8.fresh;
  const http = s.http_64x8_fresh_p50_ms;
  const runs = (p: Pair['before'], d = 2) => `${f(p.median, d)} (${p.runs.map((x) => f(x, d)).join(', ')})`;
  const rss = (m: CompareBuildsFigures['rss_mb']['before']) => `${int(m.idle)} / ${int(m.peak)} / ${int(m.after_30s)} MB`;
  const after = s.rss_mb.after;
  const bytes = s.answer_bytes_per_plan_64x8;
  return [
    `${measuredOn(r, 'node --import tsx scripts/compare-builds.ts BEFORE AFTER')} Build ${s.builds.before} and build ${s.builds.after} in turns, ` +
      `${count(s.repetitions, 'repetition')} (1-minute load ${s.loadavg_1min.map((x) => f(x, 2)).join(', ')} as each began); in process ${s.in_process_rounds} rounds each, ` +
      `over HTTP ${s.http_rounds} fresh 64×8 requests from a fresh client each, and ${s.python_calls} calls of each build's own Python client as TRL calls it ` +
      `(64×8 fresh text each call, after 5 untimed); each figure the median of the repetitions' medians (each repetition's in brackets).`,
    '',
    `| figure | ${s.builds.before} | ${s.builds.after} | target | |`,
    '| --- | --- | --- | --- | --- |',
    `| scoring 64×8 ÷ \`JSON.parse\`, in process, fresh text | ${runs(fresh.before)} | ${runs(fresh.after)} | ≤ 5 | ${verdict(fresh.after.median <= 5, f(fresh.after.median, 2))} |`,
    `| the same on the template batch | ${runs(s.scoring_over_json_parse_64x8.template.before)} | ${runs(s.scoring_over_json_parse_64x8.template.after)} | | |`,
    `| \`/score-plan\` 64×8 over HTTP, fresh text, p50 | ${runs(http.before, 1)} ms | ${runs(http.after, 1)} ms | ≤ 50 ms | ${verdict(http.after.median <= 50, `${f(http.after.median)} ms`)} |`,
    `| a Python trainer end to end (\`PlanReward\` called as TRL calls it) ÷ its \`json\` floor, p50 | ${runs(s.python_trl_call_over_json_floor.before)} | ${runs(s.python_trl_call_over_json_floor.after)} | ≤ 2.5 | ${verdict(s.python_trl_call_over_json_floor.after.median <= 2.5, f(s.python_trl_call_over_json_floor.after.median, 2))} |`,
    `| a 64×8 answer, bytes per plan: at the default detail / what that TRL client receives | ${int(bytes.default_detail.before.median)} / ${int(bytes.trl_client.before.median)} | ${int(bytes.default_detail.after.median)} / ${int(bytes.trl_client.after.median)} | the trainers' clients get only what they read | |`,
    `| resident memory: idle / peak while four 4,096-plan fresh requests arrive at once / 30 s after | ${rss(s.rss_mb.before)} | ${rss(after)} | ≤ 300 / ≤ 700 / back to idle | ${verdict(after.idle <= 300 && after.peak <= 700 && after.after_30s <= after.idle, rss(after))} |`,
  ].join('\n');
}

// --- the Python client's TRL reward function (bench/python-client.ts) ---
interface PythonClientFigures {
  batch: string;
  python: string;
  calls: number;
  warmup_calls: number;
  groups_in_request: number;
  request_bytes: number;
  response_bytes: number;
  call_ms: { p50: number; p90: number };
  json_floor_ms: { p50: number; p90: number };
  call_to_floor_ratio: { p50: number; p10: number; p90: number };
}
function renderPythonClient(r: BenchResult<PythonClientFigures>): string {
  const s = r.figures;
  return [
    `${measuredOn(r, 'npm run bench:python-client')} \`PlanReward\` called from Python ${s.python} as TRL calls it, ${s.batch} of fresh text (a new batch each call) ` +
      `(${s.groups_in_request} prompts, conversational, a profile column), one call per step into one run; ${s.calls} calls after ${s.warmup_calls} warm-up calls.`,
    '',
    '| figure | p50 | p90 | target | |',
    '| --- | --- | --- | --- | --- |',
    `| a call, end to end | ${f(s.call_ms.p50)} ms | ${f(s.call_ms.p90)} ms | | |`,
    `| its json floor: \`json.dumps\` of the request (${mb(s.request_bytes)} MB) + \`json.loads\` of the response (${mb(s.response_bytes)} MB) | ${f(s.json_floor_ms.p50)} ms | ${f(s.json_floor_ms.p90)} ms | | |`,
    `| a call ÷ its json floor | ${f(s.call_to_floor_ratio.p50)} (p10 ${f(s.call_to_floor_ratio.p10)}) | ${f(s.call_to_floor_ratio.p90)} | ≤ 2.5 | ${verdict(s.call_to_floor_ratio.p50 <= 2.5, f(s.call_to_floor_ratio.p50))} |`,
  ].join('\n');
}

// --- answer revealing on the Coding-Tutor tasks (bench/reveals-check.ts) ---
interface RevealsCheckFigures {
  tasks: number;
  source: string;
  kinds: Record<string, { candidates: number; reveals_ge_05: number; reveals_le_02: number; flagged: number; mean: number }>;
  ranked_first: { pasted: number; any_revealing: number; of_tasks: number };
}
const KIND_LABEL: Record<string, string> = {
  pasted: 'pastes the reference code (3 templates)',
  pasted_renamed: 'pastes it with local names renamed, reformatted',
  step_as_answer: 'states a solution step as what to do (2)',
  guiding: 'asks a guiding question (3)',
  partial_hint: 'gives a partial hint (2)',
  encouragement: 'encouragement only (2)',
  off_topic: 'off topic (2)',
};
/** A share in [0, 1] as a percentage to one decimal. */
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

function renderRevealsCheck(r: BenchResult<RevealsCheckFigures>): string {
  const s = r.figures;
  return [
    `${measuredOn(r, 'npm run check:reveals')} The ${s.tasks} Coding-Tutor tasks (${s.source}), one \`/verify-turn\` request each with ` +
      'the task (signature, dependencies, solution steps, reference code), a student asking where to start, and 15 candidates whose property is known by construction:',
    '',
    '| candidate | candidates | `reveals_answer` ≥ 0.5 | ≤ 0.2 | `reveals` names a span | mean `reveals_answer` |',
    '| --- | --- | --- | --- | --- | --- |',
    ...Object.entries(s.kinds).map(
      ([k, v]) => `| ${KIND_LABEL[k] ?? k} | ${v.candidates} | ${pct(v.reveals_ge_05)} | ${pct(v.reveals_le_02)} | ${pct(v.flagged)} | ${v.mean.toFixed(3)} |`,
    ),
    '',
    `Ranked first: a pasted solution in ${s.ranked_first.pasted} of ${s.ranked_first.of_tasks} tasks, any candidate that gives the solution away in ${s.ranked_first.any_revealing}.`,
  ].join('\n');
}

// --- the reveal check against a student's bug (bench/reveals-fix.ts) ---
interface RevealsFixFigures {
  split: string;
  tasks: number;
  source: string;
  conditions: Record<
    string,
    {
      kinds: Record<string, { candidates: number; flagged: number; reveals_ge_05: number; mean_score: number }>;
      ranked_first: { requests: number; socratic_first: number; revealing_or_wrong: number; wrong_above_socratic: number; question_lifts_wrong_hint: number };
      reveals_answer_ece: number;
    }
  >;
  by_language: Record<string, { tasks: number; revealing_flagged: number; honest_flagged: number }>;
}
const FIX_KIND_LABEL: Record<string, string> = {
  paste: 'reveals: pastes the reference',
  renamed: 'reveals: the reference renamed and respaced',
  equivalent: 'reveals: the reference rewritten to the same effect (a comparison from its other side, `x += e` spelled out, `range(0, n)`)',
  key_line: 'reveals: the corrected line',
  equivalent_key_line: 'reveals: the corrected line so rewritten',
  fix_in_prose_code: 'reveals: "on line K, change `…` to `…`"',
  fix_in_prose_words: 'reveals: the line and the change in words',
  socratic_quote: "honest: a question quoting the student's buggy line",
  quote_student_code: "honest: the student's code quoted whole, then a question",
  wrong_hint: 'wrong: points at another line',
  wrong_hint_question: 'wrong: the same, with "Can you see why?"',
  concept: 'honest: a concept explanation',
  off_topic: 'honest: off topic',
};
const share = (k: { flagged: number; reveals_ge_05: number }) => (k.reveals_ge_05 > k.flagged ? `${pct(k.flagged)} (${pct(k.reveals_ge_05)})` : pct(k.flagged));
function renderRevealsFix(r: BenchResult<RevealsFixFigures>): string {
  const s = r.figures;
  const conditions = Object.keys(s.conditions);
  const kinds = Object.keys(s.conditions[conditions[0]!]!.kinds);
  const first = (c: string) => s.conditions[c]!.ranked_first;
  return [
    `${measuredOn(r, 'npm run check:reveals-fix')} The ${s.split} split: ${s.tasks} Coding-Tutor tasks (${s.source}), each with one bug put into its reference ` +
      "on one line, the buggy code as the student's turn, one `/verify-turn` request per condition with a candidate of each kind below, whose property is known by construction " +
      '(the two rewritten kinds only where a rewrite applies: their number of tasks is given). ' +
      'Share of candidates for which `reveals` names a finding, and in brackets the share with `reveals_answer` ≥ 0.5 where the model alone puts more there:',
    '',
    `| candidate | ${conditions.map((c) => c.replaceAll('_', ' ')).join(' | ')} |`,
    `| --- | ${conditions.map(() => '---').join(' | ')} |`,
    ...kinds.map((k) => {
      const n = s.conditions[conditions[0]!]!.kinds[k]!.candidates;
      return `| ${FIX_KIND_LABEL[k] ?? k}${n < s.tasks ? ` (${count(n, 'task')})` : ''} | ${conditions.map((c) => share(s.conditions[c]!.kinds[k]!)).join(' | ')} |`;
    }),
    `| ranked first: the question quoting the buggy line | ${conditions.map((c) => `${first(c).socratic_first} of ${first(c).requests}`).join(' | ')} |`,
    `| ranked first: a revealing or wrong turn | ${conditions.map((c) => `${first(c).revealing_or_wrong} of ${first(c).requests}`).join(' | ')} |`,
    `| a wrong hint above the question quoting the buggy line | ${conditions.map((c) => `${first(c).wrong_above_socratic} of ${first(c).requests}`).join(' | ')} |`,
    `| the wrong hint scored higher with "Can you see why?" appended | ${conditions.map((c) => `${first(c).question_lifts_wrong_hint} of ${first(c).requests}`).join(' | ')} |`,
    `| mean score: the question quoting the buggy line / the wrong hint / with "Can you see why?" | ${conditions
      .map((c) => ['socratic_quote', 'wrong_hint', 'wrong_hint_question'].map((k) => f(s.conditions[c]!.kinds[k]!.mean_score, 3)).join(' / '))
      .join(' | ')} |`,
    `| ECE of \`reveals_answer\` against the kinds' labels (10 bins) | ${conditions.map((c) => f(s.conditions[c]!.reveals_answer_ece, 3)).join(' | ')} |`,
    '',
    'By language, with `reference_code` only (revealing candidates flagged; honest and wrong ones flagged): ' +
      Object.entries(s.by_language)
        .map(([l, v]) => `${l} ${v.tasks} tasks, ${pct(v.revealing_flagged)}; ${pct(v.honest_flagged)}`)
        .join(' · ') +
      '.',
  ].join('\n');
}

// --- a stalled SQLite write (bench/slow-store.ts) ---
/** How many answers of each status, as "12 × 200, 3 × 503". */
const statusCounts = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .map(([code, n]) => `${n} × ${code}`)
    .join(', ');

interface SlowStoreFigures {
  hold_ms: number;
  health_probes: number;
  health_ms: { p50: number; p99: number; max: number };
  run_requests: number;
  run_statuses: Record<string, number>;
  run_ms_max: number;
}
function renderSlowStore(r: BenchResult<SlowStoreFigures>): string {
  const s = r.figures;
  return (
    `${measuredOn(r, 'node --import tsx bench/slow-store.ts')} Another process held \`runs.sqlite\`'s write lock for ${int(s.hold_ms)} ms while ` +
    `${s.run_requests} run requests waited for it: ${s.health_probes} \`/health\` probes meanwhile took ${f(s.health_ms.p50)} ms at the median, ` +
    `${f(s.health_ms.p99)} ms at p99 and ${f(s.health_ms.max)} ms at most; the run requests got ${statusCounts(s.run_statuses)}, the last after ${int(s.run_ms_max)} ms.`
  );
}

// --- a slow disk under SQLite (bench/slow-disk.ts) ---
interface SlowDiskFigures {
  slow_ms_per_write: number;
  seconds: number;
  health_probes: number;
  health_ms: { p50: number; p99: number; max: number };
  run_requests: number;
  run_statuses: Record<string, number>;
  run_ms: { p50: number; p99: number };
  acknowledged: number;
  counted: number;
}
function renderSlowDisk(r: BenchResult<SlowDiskFigures>): string {
  const s = r.figures;
  return (
    `${measuredOn(r, 'node --import tsx bench/slow-disk.ts')} Every write and sync in \`STATE_DIR\` waited ${s.slow_ms_per_write} ms (test/fixtures/slow-write) ` +
    `while two clients sent run requests back to back for ${s.seconds} s: ${s.health_probes} \`/health\` probes took ${f(s.health_ms.p50)} ms at the median, ` +
    `${f(s.health_ms.p99)} ms at p99 and ${f(s.health_ms.max)} ms at most; the ${s.run_requests} run requests got ${statusCounts(s.run_statuses)} ` +
    `(p50 ${int(s.run_ms.p50)} ms, p99 ${int(s.run_ms.p99)} ms); ${s.acknowledged} acknowledged, ${s.counted} counted by the run.`
  );
}

// --- bodies that never end (bench/body-flood.ts) ---
interface BodyFloodFigures {
  flood_connections: number;
  flood_addresses: number;
  flood_closed_by_service: number;
  probe_interval_ms: number;
  api: { requests: number; statuses: Record<string, number>; ms: { p50: number; p99: number } };
  health: { requests: number; statuses: Record<string, number>; ms: { p50: number; p99: number } };
}
function renderBodyFlood(r: BenchResult<BodyFloodFigures>): string {
  const s = r.figures;
  const statuses = (x: Record<string, number>) =>
    Object.entries(x)
      .map(([code, n]) => `${n} × ${code}`)
      .join(', ');
  const row = (what: string, x: BodyFloodFigures['api']) => `| ${what} | ${x.requests} | ${statuses(x.statuses)} | ${f(x.ms.p50)} | ${f(x.ms.p99)} |`;
  return [
    `${measuredOn(r, 'node --import tsx bench/body-flood.ts')} ${int(s.flood_connections)} connections from ${s.flood_addresses} addresses each sent the ` +
      `headers of a 1 MB \`/score-plan\` and a byte of its body every 2 s; the service closed ${int(s.flood_closed_by_service)} of them. ` +
      `Meanwhile, from another address, every ${s.probe_interval_ms} ms on a new connection:`,
    '',
    '| request | sent | answers | p50 ms | p99 ms |',
    '| --- | --- | --- | --- | --- |',
    row('`POST /validate-plan`', s.api),
    row('`GET /health`', s.health),
  ].join('\n');
}

interface Block {
  /** The result file it renders: bench/results/<result>.json. */
  result: string;
  render: (r: BenchResult) => string;
}
const block = <F>(result: string, render: (r: BenchResult<F>) => string): Block => ({ result, render: (r) => render(r as BenchResult<F>) });

/** Every block a doc may embed, by NAME. */
export const BLOCKS: Record<string, Block> = {
  'guarded-eval': block<GuardedEvalFigures>('guarded-eval', renderGuardedEval),
  'guarded-latency': block<GuardedLatencyFigures>('guarded-latency', (r) => renderGuardedLatency(r.figures)),
  'score-plan': block('score-plan', renderScorePlan),
  runs: block('runs', renderRuns),
  'runs-postgres': block('runs-postgres', renderRuns),
  replicas: block('replicas', renderReplicas),
  detail: block('detail', renderDetail),
  'score-plan-summary': block('score-plan', renderScorePlanSummary),
  exposure: block('exposure', renderExposure),
  'verify-turn': block('verify-turn', renderVerifyTurn),
  'evaluate-dialogue': block('evaluate-dialogue', renderEvaluateDialogue),
  encoder: block('encoder', renderEncoder),
  'trace-knowledge': block('trace-knowledge', renderTraceKnowledge),
  concurrency: block('concurrency', renderConcurrency),
  'concurrency-summary': block('concurrency', renderConcurrencySummary),
  'heavy-lane': block('heavy-lane', renderHeavyLane),
  probes: block('probes', renderProbes),
  'openrlhf-burst': block('openrlhf-burst', renderOpenRlhfBurst),
  'compare-builds': block('compare-builds', renderCompareBuilds),
  'python-client': block('python-client', renderPythonClient),
  'reveals-check': block('reveals-check', renderRevealsCheck),
  'reveals-fix': block('reveals-fix-evaluation', renderRevealsFix),
  'reveals-fix-calibration': block('reveals-fix-calibration', renderRevealsFix),
  'slow-store': block('slow-store', renderSlowStore),
  'body-flood': block('body-flood', renderBodyFlood),
  'slow-disk': block('slow-disk', renderSlowDisk),
};

const MARKER = /<!-- ([a-z0-9-]+)-figures:(start|end) -->/g;

/** The NAMEs of the blocks `doc` embeds, in order; throws on a start without its end or the reverse. */
export function blocksIn(doc: string): string[] {
  const names: string[] = [];
  let open: string | undefined;
  for (const [, name, edge] of doc.matchAll(MARKER)) {
    if (edge === 'start' && open === undefined) open = name!;
    else if (edge === 'end' && open === name) {
      names.push(name!);
      open = undefined;
    } else throw new Error(`figures block ${open ?? name}: its start and end markers do not pair`);
  }
  if (open !== undefined) throw new Error(`figures block ${open} has no end marker`);
  return names;
}

/** `doc` with every figures block rendered afresh from its result file. */
export function embedFigures(doc: string, read: (name: string) => BenchResult = readResult): string {
  let out = doc;
  let from = 0;
  for (const name of blocksIn(doc)) {
    const b = BLOCKS[name];
    if (!b) throw new Error(`no renderer for <!-- ${name}-figures --> (bench/figures.ts BLOCKS)`);
    const start = `<!-- ${name}-figures:start -->`;
    const i = out.indexOf(start, from) + start.length;
    const j = out.indexOf(`<!-- ${name}-figures:end -->`, i);
    const text = `\n${b.render(read(b.result)).trimEnd()}\n`;
    out = out.slice(0, i) + text + out.slice(j);
    from = i + text.length;
  }
  return out;
}

/** README.md and docs/*.md, the files that may embed figures. */
export const DOCS = [
  new URL('../README.md', import.meta.url),
  ...readdirSync(new URL('../docs/', import.meta.url))
    .filter((n) => n.endsWith('.md'))
    .sort()
    .map((n) => new URL(`../docs/${n}`, import.meta.url)),
];

// `npm run figures`: rewrite every block from the committed results.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const url of DOCS) {
    const doc = readFileSync(url, 'utf8');
    const next = embedFigures(doc);
    if (next !== doc) {
      writeFileSync(url, next);
      console.log(`rewrote ${url.pathname}`);
    }
  }
}
