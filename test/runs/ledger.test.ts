import { DEFAULT_SCORING } from '../../src/scoring/score-groups.js';
import t from 'tap';
import { DEFAULT_RUN_CONFIG } from '../../src/contracts/runs.js';
import { INITIAL_WEIGHTS, type AxisVector } from '../../src/grpo/compose.js';
import { orderIndependentMean } from '../../src/grpo/stats.js';
import { RunLedger } from '../../src/runs/ledger.js';
import type { Tally } from '../../src/scoring/score-groups.js';
import { ENGINES, openStore, stateSettings, type Engine } from '../support/stores.js';

const v = (struct: number, pers: number, ped: number): AxisVector => ({ struct, pers, ped });
/** What the plans were judged with: the run defaults a new run gets here. */
const JUDGED = { lambda_hard: DEFAULT_SCORING.lambda_hard, reward_profile: DEFAULT_SCORING.reward_profile };
const tally = (raws: AxisVector[], counts: Partial<Omit<Tally, 'raws'>> = {}): Tally => ({
  raws,
  gated: 0,
  gateReasons: {},
  diversities: [],
  flagged: 0,
  gaming: {},
  ...counts,
});
const fresh = async (engine: Engine, settings?: { STATE_DIR: string; STATE_URL?: string }) => {
  const s = settings ?? (await stateSettings(engine));
  const store = await openStore(s);
  return { settings: s, store, ledger: new RunLedger(store, { ...JUDGED, maxRuns: 1_000_000 }) };
};
const send = async (ledger: RunLedger, run: string, step: number | undefined, raws: AxisVector[], gated = 0) => {
  const c = await ledger.count(run, step, tally(raws, { gated, gateReasons: gated ? { cycle: gated } : {} }), JUDGED);
  if (c.kind !== 'counted') throw new Error(`not counted: ${c.kind}`);
  return { ticket: c.run, finalized: c.run.finalized };
};

for (const engine of ENGINES) {
  t.test(engine, async (t) => {
    t.test('a step folds in once, when a later step arrives, from the mean over all its plans', async (t) => {
      const { ledger, store } = await fresh(engine);
      t.teardown(() => store.close());
      await ledger.configure('r', { t_warm: 0, t_refresh: 1 });
      await send(ledger, 'r', 0, [v(1, 0, 0.5), v(0.5, 0, 0.5)], 1);
      await send(ledger, 'r', 0, [v(0, 0.25, 1)]);
      t.equal((await ledger.get('r'))!.open_step?.plans, 3);
      t.equal((await ledger.get('r'))!.last_finalized_step, null);
      const { finalized } = await send(ledger, 'r', 1, [v(1, 1, 1)]);
      t.equal(finalized.length, 1);
      const row = finalized[0]!;
      t.same(row.mean, v(orderIndependentMean([1, 0.5, 0]), orderIndependentMean([0, 0, 0.25]), orderIndependentMean([0.5, 0.5, 1])));
      t.same([row.step, row.plans, row.gated, row.requests, row.gated_fraction], [0, 3, 1, 2, 1 / 3]);
      t.same(row.weights, INITIAL_WEIGHTS, 'step 0 composed with w₀');
      t.same(row.ema, row.mean, 'EMA initialized with the first step mean');
      t.equal(row.refreshed, true);
      t.not(row.weights_after.pers, INITIAL_WEIGHTS.pers);
      t.same((await ledger.get('r'))!.weights, row.weights_after);
      t.same(
        (await send(ledger, 'r', 1, [v(1, 1, 1)])).ticket.weights,
        row.weights_after,
        'step 1 began once step 0 was finalized, with the refreshed weights',
      );
    });

    t.test('gate reasons add up and group diversities average over every request of a step, durably', async (t) => {
      const { ledger, store, settings } = await fresh(engine);
      const count = (step: number, gateReasons: Record<string, number>, diversities: number[]) =>
        ledger.count('g', step, tally([v(1, 1, 1)], { gated: 1, gateReasons, diversities }), JUDGED);
      await count(0, { cycle: 1, parse_error: 2 }, [0.2, 0.4]);
      await store.close();
      // The open step's tallies survive a restart like its values.
      const reopened = await fresh(engine, settings);
      t.teardown(() => reopened.store.close());
      await reopened.ledger.count('g', 0, tally([v(1, 1, 1)], { gated: 1, gateReasons: { cycle: 3 }, diversities: [0.9] }), JUDGED);
      await reopened.ledger.count('g', 0, tally([v(1, 1, 1)]), JUDGED);
      const c = await reopened.ledger.count('g', 1, tally([v(1, 1, 1)]), JUDGED);
      if (c.kind !== 'counted') throw new Error(c.kind);
      const [row] = c.run.finalized;
      t.same(row!.gate_reasons, { cycle: 4, parse_error: 2 });
      t.ok(Math.abs(row!.diversity! - 0.5) < 1e-15, `mean of 0.2, 0.4, 0.9: ${row!.diversity}`);
      t.same((await reopened.store.history('g', 0, 10)).rows[0], row, 'stored as answered');
      const f = await reopened.ledger.finalize('g');
      t.same([f.finalized?.gate_reasons, f.finalized?.diversity], [{}, null], 'a step without gated plans or pairs: no reasons, no diversity');
    });

    t.test('gaming signal counts add up exactly over split, concurrent and reopened requests; late plans add none', async (t) => {
      const { ledger, store, settings } = await fresh(engine);
      const count = (step: number, flagged: number, gaming: Tally['gaming']) =>
        ledger.count('gm', step, tally([v(1, 1, 1), v(0, 0, 0)], { flagged, gaming }), JUDGED);
      await count(0, 2, { duplicate_steps: 2, off_topic: 1 });
      // Requests of one step at once: each is counted whole, under the run's lock.
      await Promise.all(Array.from({ length: 8 }, (_, i) => count(0, 1, i % 2 ? { bare_keywords: 1 } : { bare_keywords: 1, keyword_stuffing: 1 })));
      await store.close();
      const reopened = await fresh(engine, settings);
      t.teardown(() => reopened.store.close());
      const again = (step: number, flagged: number, gaming: Tally['gaming']) =>
        reopened.ledger.count('gm', step, tally([v(1, 1, 1)], { flagged, gaming }), JUDGED);
      await again(0, 1, { off_topic: 1, cue_only_phase: 1 });
      await again(0, 0, {});
      const c = await again(1, 1, { degenerate_structure: 1 });
      if (c.kind !== 'counted') throw new Error(c.kind);
      const [row] = c.run.finalized;
      t.same([row!.plans, row!.requests, row!.flagged], [20, 11, 11]);
      t.same(row!.gaming, { duplicate_steps: 2, off_topic: 2, bare_keywords: 8, keyword_stuffing: 4, cue_only_phase: 1 });
      const late = await again(0, 1, { off_topic: 1 });
      t.equal(late.kind === 'counted' && late.run.status, 'late');
      const [stored] = (await reopened.ledger.history('gm', 0, 10)).rows;
      t.same(stored, { ...row, late_plans: 1 }, 'a late plan is recorded as late, its signals are not counted');
      const f = await reopened.ledger.finalize('gm');
      t.same([f.finalized?.flagged, f.finalized?.gaming], [1, { degenerate_structure: 1 }], 'the next step counts from zero');
      await reopened.ledger.count('gm', 2, tally([v(1, 1, 1)]), JUDGED);
      t.same((await reopened.ledger.finalize('gm')).finalized?.flagged, 0, 'a step without signals: zero, not null');
    });

    t.test('aboutness: the mean over the parsed plans of every request of a step, counted once, bit-identical however split', async (t) => {
      const { ledger, store, settings } = await fresh(engine);
      // Two plans per request, the second unparsed when a request has one value only.
      const parts = [[0.1, 0.7], [Math.PI / 10], [], [0.3, 1 / 3], [0.9], [0.25, 0.05]];
      const count = (l: RunLedger, run: string, step: number, aboutness: number[], key?: string) =>
        l.count(run, step, tally([v(1, 1, 1), v(0, 0, 0)], { aboutness }), JUDGED, key === undefined ? undefined : { key, fingerprint: key });
      await count(ledger, 'ab', 0, parts[0]!, 'k0');
      // Requests of one step at once: each is counted whole, under the run's lock.
      await Promise.all(parts.slice(1, 4).map((a, i) => count(ledger, 'ab', 0, a, `k${i + 1}`)));
      await store.close();
      const reopened = await fresh(engine, settings);
      t.teardown(() => reopened.store.close());
      t.equal((await count(reopened.ledger, 'ab', 0, parts[0]!, 'k0')).kind, 'replay', 'a retry adds nothing');
      for (const a of parts.slice(4)) await count(reopened.ledger, 'ab', 0, a);
      const c = await count(reopened.ledger, 'ab', 1, []);
      if (c.kind !== 'counted') throw new Error(c.kind);
      const [row] = c.run.finalized;
      t.equal(row!.plans, 12);
      t.equal(row!.aboutness, orderIndependentMean(parts.flat()), 'the mean of the 9 values, summed in a fixed order');
      // The same plans as one request, and split the other way round, in another run.
      await count(reopened.ledger, 'whole', 0, parts.flat());
      for (const a of parts.slice().reverse()) await count(reopened.ledger, 'reversed', 0, a);
      for (const run of ['whole', 'reversed']) t.equal((await reopened.ledger.finalize(run)).finalized?.aboutness, row!.aboutness, `${run}: bit-identical`);
      t.equal((await count(reopened.ledger, 'ab', 0, [0])).kind, 'counted');
      t.same((await reopened.ledger.history('ab', 0, 1)).rows[0], { ...row, late_plans: 2 }, 'late plans leave the mean alone');
      t.equal((await reopened.ledger.finalize('ab')).finalized?.aboutness, null, 'no plan parsed: null, not zero');
    });

    t.test('every plan of a step uses the weights in force when the step began', async (t) => {
      const { ledger, store } = await fresh(engine);
      t.teardown(() => store.close());
      await ledger.configure('r', { t_warm: 0, t_refresh: 1 });
      await send(ledger, 'r', 0, [v(1, 0, 1)]);
      const opening = (await send(ledger, 'r', 1, [v(1, 0, 1)])).ticket;
      t.notSame(opening.weights, INITIAL_WEIGHTS, 'step 1 began after step 0 refreshed the weights');
      const joining = (await send(ledger, 'r', 1, [v(0, 0, 0)])).ticket;
      t.same(joining.weights, opening.weights);
      t.equal(joining.status, 'open');
    });

    t.test('late requests: scored with their step weights, reported, never folded in', async (t) => {
      const { ledger, store } = await fresh(engine);
      t.teardown(() => store.close());
      await ledger.configure('r', { t_warm: 0, t_refresh: 1 });
      await send(ledger, 'r', 0, [v(1, 0, 1)]);
      await send(ledger, 'r', 2, [v(1, 0, 1)]);
      const w2 = (await ledger.get('r'))!.open_step!.weights;
      await send(ledger, 'r', 3, [v(1, 0, 1)]);
      const before = (await ledger.get('r'))!;
      const late0 = (await send(ledger, 'r', 0, [v(0, 0, 0)])).ticket;
      t.same([late0.status, late0.counted], ['late', false]);
      t.same(late0.weights, INITIAL_WEIGHTS);
      const late1 = (await send(ledger, 'r', 1, [v(0, 0, 0)])).ticket;
      t.same(late1.weights, w2, 'a skipped step gets the weights in force after the last finalized step before it');
      t.same((await send(ledger, 'r', 2, [v(0, 0, 0), v(0, 0, 0)])).ticket.weights, w2);
      const after = (await ledger.get('r'))!;
      t.same([after.ema, after.weights, after.last_finalized_step], [before.ema, before.weights, before.last_finalized_step]);
      const rows = (await ledger.history('r', 0, 10)).rows;
      t.same(
        rows.map((r) => [r.step, r.late_plans]),
        [
          [0, 1],
          [2, 2],
        ],
      );
    });

    t.test('without a step, each request is its own step; samples_per_step groups step-less plans', async (t) => {
      const { ledger, store } = await fresh(engine);
      t.teardown(() => store.close());
      const a = await send(ledger, 'auto', undefined, [v(1, 1, 1)]);
      const b = await send(ledger, 'auto', undefined, [v(0, 0, 0)]);
      t.same([a.ticket.step, a.ticket.status, a.finalized.length], [0, 'auto', 1]);
      t.same([b.ticket.step, b.finalized.map((r) => r.step)], [1, [1]]);

      await ledger.configure('chunked', { samples_per_step: 3 });
      const steps = [];
      for (const n of [1, 1, 2, 1])
        steps.push(
          await send(
            ledger,
            'chunked',
            undefined,
            Array.from({ length: n }, () => v(1, 0, 0)),
          ),
        );
      t.same(
        steps.map((s) => s.ticket.step),
        [0, 0, 0, 1],
      );
      t.same(
        steps.map((s) => s.finalized.map((r) => [r.step, r.plans])),
        [[], [], [[0, 4]], []],
      );
      t.equal((await ledger.get('chunked'))!.open_step?.plans, 1);
      t.same((await ledger.finalize('chunked')).finalized?.plans, 1, 'explicit finalize closes the open step');
      t.equal((await ledger.finalize('chunked')).finalized, null, 'nothing left to finalize');
    });

    t.test('a transaction that fails leaves nothing behind', async (t) => {
      const { ledger, store } = await fresh(engine);
      t.teardown(() => store.close());
      await t.rejects(
        store.withRun('r', async (tx) => {
          await tx.saveRun({
            id: 'r',
            config: DEFAULT_RUN_CONFIG,
            weights: INITIAL_WEIGHTS,
            ema: null,
            last_finalized_step: null,
            finalized_steps: 0,
            created_at: 'a',
            updated_at: 'a',
          });
          await tx.saveOpenStep({
            step: 5,
            auto: false,
            weights: INITIAL_WEIGHTS,
            plans: 1,
            gated: 0,
            requests: 1,
            gate_reasons: {},
            flagged: 0,
            gaming: {},
          });
          await tx.addValues(5, [v(1, 1, 1)], [], [0.5]);
          throw new Error('scoring failed');
        }),
        /scoring failed/,
      );
      t.equal(await ledger.get('r'), null, 'neither the run nor its open step');
      await send(ledger, 'r', 6, [v(1, 1, 1)]);
      t.same((await ledger.finalize('r')).finalized?.step, 6);
    });

    t.test('the open step and receipts survive a reopened store, bit for bit; the run continues as if uninterrupted', async (t) => {
      const config = { t_warm: 1, t_refresh: 2, alpha: 0.3 };
      const raws = (s: number) => [v(Math.sin(s) ** 2, 1 / (s + 3), 0.1 * s), v(Math.cos(s) ** 2, 1 / (s + 7), 0.3)];
      const a = await fresh(engine);
      const b = await fresh(engine);
      t.teardown(() => b.store.close());
      await a.ledger.configure('r', config);
      await b.ledger.configure('r', config);
      for (let s = 0; s < 9; s++) {
        await send(a.ledger, 'r', s, raws(s));
        await send(b.ledger, 'r', s, raws(s));
      }
      const counted = await a.ledger.count('r', 8, tally(raws(80), { gated: 1, gateReasons: { cycle: 1 } }), JUDGED, {
        key: 'k',
        fingerprint: 'f',
      });
      await send(b.ledger, 'r', 8, raws(80), 1);
      const before = (await a.ledger.get('r'))!;
      await a.store.close();
      const reopened = await fresh(engine, a.settings);
      t.teardown(() => reopened.store.close());
      const after = (await reopened.ledger.get('r'))!;
      t.same(after, before, 'configuration, weights, EMA, counters and the open step');
      t.same(after.open_step, { step: 8, plans: 4, gated: 1, requests: 2, weights: before.open_step!.weights });
      const retry = await reopened.ledger.count('r', 8, tally(raws(80), { gated: 1, gateReasons: { cycle: 1 } }), JUDGED, {
        key: 'k',
        fingerprint: 'f',
      });
      t.equal(retry.kind, 'replay', 'the receipt outlived the store');
      if (retry.kind === 'replay' && counted.kind === 'counted') t.same(retry.receipt.run, counted.run);
      t.equal((await reopened.ledger.count('r', 8, tally([]), JUDGED, { key: 'k', fingerprint: 'other' })).kind, 'conflict');
      await send(reopened.ledger, 'r', 9, raws(9));
      await send(b.ledger, 'r', 9, raws(9));
      const strip = (rows: { finalized_at: string }[]) => rows.map((r) => ({ ...r, finalized_at: '' }));
      t.same(strip((await reopened.ledger.history('r', 0, 100)).rows), strip((await b.ledger.history('r', 0, 100)).rows));
      for (const k of ['struct', 'pers', 'ped'] as const) t.equal((await reopened.ledger.get('r'))!.weights[k], (await b.ledger.get('r'))!.weights[k]);
    });

    t.test('a changed λ_hard is caught at counting time, not silently used', async (t) => {
      const { ledger, store } = await fresh(engine);
      t.teardown(() => store.close());
      await ledger.configure('r', { lambda_hard: 3 });
      const c = await ledger.count('r', 0, tally([v(1, 1, 1)]), JUDGED);
      t.same(c, { kind: 'stale', defaults: { lambda_hard: 3, reward_profile: 'paper', epsilon: 1e-6, tau: 1e-6, ddof: 0 } });
      t.equal((await ledger.get('r'))!.open_step, null, 'nothing counted');
    });

    t.test('MAX_RUNS: exact under concurrent creation; existing runs keep working; a deleted run frees a place', async (t) => {
      const s = await stateSettings(engine);
      // On PostgreSQL two stores on one database, as two replicas; SQLite takes one connection per process
      // (a second one in the same process would wait on the first synchronously), so one store.
      const stores = engine === 'postgres' ? await Promise.all([openStore(s), openStore(s)]) : [await openStore(s)];
      t.teardown(() => Promise.all(stores.map((x) => x.close())));
      const ledgers = [stores[0]!, stores.at(-1)!].map((store) => new RunLedger(store, { ...JUDGED, maxRuns: 5 }));
      const outcomes = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => send(ledgers[i % 2]!, `run-${i}`, 0, [v(1, 1, 1)])));
      t.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 5, 'five runs created, no more');
      const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      t.equal(refused.length, 7);
      t.match(refused[0]!.reason, { name: 'RunQuotaExceeded', message: /5 runs exist, the most this service keeps \(MAX_RUNS\)/ });
      const { runs } = await ledgers[0]!.list(null, 100);
      t.equal(runs.length, 5);
      await send(ledgers[1]!, runs[0]!.id, 1, [v(0, 0, 0)]);
      t.pass('an existing run still counts plans');
      await t.rejects(ledgers[0]!.configure('another', {}), { name: 'RunQuotaExceeded' }, 'PUT of a new run is refused too');
      await ledgers[0]!.delete(runs[0]!.id);
      t.equal((await ledgers[0]!.configure('another', {})).created, true, 'a deleted run frees its place');
    });

    t.test('runs list a page at a time in id order', async (t) => {
      const { ledger, store } = await fresh(engine);
      t.teardown(() => store.close());
      const ids = ['b', 'a', 'C', 'a-2', 'z', 'a.1', '_x'];
      for (const id of ids) await ledger.configure(id, {});
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: { runs: { id: string }[]; next_cursor: string | null } = await ledger.list(cursor, 3);
        seen.push(...page.runs.map((r) => r.id));
        cursor = page.next_cursor;
        pages++;
      } while (cursor !== null);
      t.same(seen, [...ids].sort(), 'every run once, in byte order of the id');
      t.equal(pages, 3);
      t.same(await ledger.list(null, 7).then((p) => p.next_cursor), null, 'an exact last page has no cursor');
    });
  });
}
