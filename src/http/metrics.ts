import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, type Metric, Registry } from 'prom-client';
import { GAMING_SIGNAL_CODES } from '../contracts/gaming.js';
import { VIOLATION_CODES } from '../contracts/violations.js';
import { SOFT_AXES } from '../grpo/compose.js';
import { ABOUTNESS_BUCKETS, type ScoreSummary } from '../scoring/score-groups.js';
import type { Capability } from '../service/capability.js';
import type { RunStore } from '../runs/store.js';
import type { WorkPool } from '../service/pool/pool.js';

/**
 * A histogram per run fed a request's counts at once (ScoreSummary['aboutness']): prom-client's Histogram
 * takes one value at a time, and a request's summary keeps a few counts rather than a value per plan.
 */
class RunHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #runs = new Map<string, ScoreSummary['aboutness']>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {}

  /** `counts.buckets` are the values at or below each bound. */
  add(run: string, counts: ScoreSummary['aboutness']): void {
    if (counts.count === 0) return;
    const h = this.#runs.get(run) ?? { count: 0, sum: 0, buckets: this.bounds.map(() => 0) };
    this.#runs.set(run, { count: h.count + counts.count, sum: h.sum + counts.sum, buckets: h.buckets.map((n, i) => n + counts.buckets[i]!) });
  }

  remove(run: string): void {
    this.#runs.delete(run);
  }

  /** What prom-client's registry writes, as its Histogram gives it. */
  get() {
    const values = [...this.#runs].flatMap(([run, h]) => [
      ...this.bounds.map((le, i) => ({ metricName: `${this.name}_bucket`, labels: { le, run }, value: h.buckets[i]! })),
      { metricName: `${this.name}_bucket`, labels: { le: '+Inf', run }, value: h.count },
      { metricName: `${this.name}_sum`, labels: { run }, value: h.sum },
      { metricName: `${this.name}_count`, labels: { run }, value: h.count },
    ]);
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

// Labels are bounded: a route is its pattern (`/runs/:id`, or `unmatched`), a run is one of at most
// MAX_RUNS and its series are dropped when the run is deleted, a gate reason is one of the violation codes,
// a signal one of the gaming signal codes.
export function installMetrics(app: FastifyInstance, pool: WorkPool, capabilities: Record<string, Capability<unknown>>, store: RunStore): void {
  const register = new Registry();
  collectDefaultMetrics({ register });
  const labels = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'http_requests_total', help: 'Requests answered', labelNames: labels, registers: [register] });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request arriving to its answer being sent',
    labelNames: labels,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [register],
  });
  const inFlight = new Gauge({ name: 'http_requests_in_flight', help: 'Requests being handled', registers: [register] });
  const poolGauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [register],
      collect() {
        this.set(read());
      },
    });
  poolGauge('tutor_pool_workers', 'Worker threads (WORKERS)', () => pool.status().workers);
  poolGauge('tutor_pool_running', 'Tasks running on a worker', () => pool.status().running);
  poolGauge('tutor_pool_queued', 'Tasks waiting for a worker (MAX_QUEUE bounds it)', () => pool.status().queued);
  poolGauge('tutor_pool_utilization', "Share of the pool's capacity used since start", () => pool.status().utilization);
  poolGauge('tutor_pool_heap_after_collection_bytes', "The workers' V8 heaps together after their last idle collection", () => pool.collections().heapBytes);
  const counter = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers: [register],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  counter(
    'tutor_pool_idle_collections_total',
    'Memory-reducing garbage collections of every thread, run IDLE_COLLECT_MS after the pool last worked',
    () => pool.collections().count,
  );
  counter('tutor_pool_collected_bytes_total', 'Worker heap those collections gave back', () => pool.collections().freedBytes);
  counter(
    'tutor_pool_workers_replaced_total',
    'Workers replaced by fresh ones after a collection left the process above IDLE_RSS_MB',
    () => pool.collections().replaced,
  );
  new Counter({
    name: 'tutor_encoder_cache_lookups_total',
    help: 'Sentence-encoder cache lookups, by result (hit: embedding reused; miss: text embedded), over every worker, with the one text of each load warm-up',
    labelNames: ['result'],
    registers: [register],
    collect() {
      const { hits, misses } = pool.encoderCache();
      this.reset();
      this.inc({ result: 'hit' }, hits);
      this.inc({ result: 'miss' }, misses);
    },
  });
  new Gauge({
    name: 'tutor_capability_ready',
    help: 'Whether a model-backed capability is loaded (1) or not (0)',
    labelNames: ['capability'],
    registers: [register],
    collect() {
      for (const [name, c] of Object.entries(capabilities)) this.set({ capability: name }, c.status().ready ? 1 : 0);
    },
  });
  new Gauge({
    name: 'tutor_run_store_available',
    help: 'Whether the run store can be used now (1) or is unreachable, full or damaged (0; /ready says why)',
    labelNames: ['engine'],
    registers: [register],
    async collect() {
      this.set({ engine: store.engine }, (await store.check()) === null ? 1 : 0);
    },
  });
  const plans = new Counter({ name: 'tutor_plans_scored_total', help: 'Plans scored, per run', labelNames: ['run'], registers: [register] });
  const gated = new Counter({ name: 'tutor_plans_gated_total', help: 'Plans gated, per run and reason', labelNames: ['run', 'reason'], registers: [register] });
  const flagged = new Counter({
    name: 'tutor_plans_flagged_total',
    help: 'Plans that raised a gaming signal, per run and signal',
    labelNames: ['run', 'signal'],
    registers: [register],
  });
  const aboutness = new RunHistogram(
    'tutor_plan_aboutness',
    'Aboutness G of the plans that have one (`aboutness`: how far a plan as a whole is about its question and says something of its own about it), per run',
    ABOUTNESS_BUCKETS,
  );
  register.registerMetric(aboutness as unknown as Metric);
  const late = new Counter({
    name: 'tutor_late_plans_total',
    help: 'Plans of already finalized steps (scored, not counted)',
    labelNames: ['run'],
    registers: [register],
  });
  const step = new Gauge({ name: 'tutor_run_step', help: 'The step the last request counted in', labelNames: ['run'], registers: [register] });
  const weight = new Gauge({ name: 'tutor_run_weight', help: 'Current reward weight, per run and axis', labelNames: ['run', 'axis'], registers: [register] });
  const ema = new Gauge({
    name: 'tutor_run_ema',
    help: 'EMA of the mean raw reward at the last finalized step, per run and axis',
    labelNames: ['run', 'axis'],
    registers: [register],
  });

  const observeScoring = (s: ScoreSummary) => {
    const run = s.run?.id ?? 'none';
    plans.inc({ run }, s.plans);
    for (const [reason, n] of Object.entries(s.gate_reasons)) gated.inc({ run, reason }, n);
    for (const [signal, n] of Object.entries(s.gaming)) flagged.inc({ run, signal }, n);
    aboutness.add(run, s.aboutness);
    if (!s.run) return;
    if (s.run.status === 'late') late.inc({ run }, s.plans);
    step.set({ run }, s.run.step);
    for (const axis of SOFT_AXES) {
      weight.set({ run, axis }, s.run.weights[axis]);
      if (s.run.ema) ema.set({ run, axis }, s.run.ema[axis]);
    }
  };

  // A request refused by an earlier onRequest hook (no key) never reaches this one.
  const entered = new WeakSet<object>();
  app.addHook('onRequest', async (req) => {
    entered.add(req);
    inFlight.inc();
  });
  app.addHook('onResponse', async (req, reply) => {
    if (entered.has(req)) inFlight.dec();
    const l = { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
    requests.inc(l);
    duration.observe(l, reply.elapsedTime / 1000);
    if (req.scoreSummary) observeScoring(req.scoreSummary);
    if (l.route === '/runs/:id' && req.method === 'DELETE' && reply.statusCode === 204) {
      const run = (req.params as { id: string }).id;
      for (const m of [plans, late, step]) m.remove({ run });
      for (const reason of Object.keys(VIOLATION_CODES)) gated.remove({ run, reason });
      for (const signal of GAMING_SIGNAL_CODES) flagged.remove({ run, signal });
      aboutness.remove(run);
      for (const m of [weight, ema]) for (const axis of SOFT_AXES) m.remove({ run, axis });
    }
  });
  app.get(
    '/metrics',
    { schema: { operationId: 'getMetrics', tags: ['service'], summary: 'Prometheus metrics in the text exposition format (scope read)' } },
    async (_req, reply) => reply.type(register.contentType).send(await register.metrics()),
  );
}
