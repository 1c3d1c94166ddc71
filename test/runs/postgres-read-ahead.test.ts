// What the PostgreSQL store reads ahead with a run (src/runs/postgres-read-ahead.ts) must never change what
// is counted: random sequences of requests, counted on both engines (SQLite reads everything when asked),
// must come to the same answers, history, open step and receipts.
import pg from 'pg';
import t from 'tap';
import { mulberry32 } from '../../src/common/rng.js';
import type { AxisVector } from '../../src/grpo/compose.js';
import { RunLedger, type Counted } from '../../src/runs/ledger.js';
import { MAX_RECEIPTS_PER_RUN, type RunStore } from '../../src/runs/store.js';
import { DEFAULT_SCORING, type Tally } from '../../src/scoring/score-groups.js';
import { ENGINES, openStore, stateSettings } from '../support/stores.js';

const JUDGED = { lambda_hard: DEFAULT_SCORING.lambda_hard, reward_profile: DEFAULT_SCORING.reward_profile };

interface Item {
  step: number | undefined;
  tally: Tally;
  receipt?: { key: string; fingerprint: string; alsoUnder?: string[] };
}

/** A request's outcome without its receipt id, which each engine numbers its own way. */
const outcome = (c: Exclude<Counted, { kind: 'stale' }>) =>
  c.kind === 'counted' ? { kind: c.kind, run: c.run, receipt: c.receipt !== undefined } : c.kind === 'replay' ? { kind: c.kind, run: c.receipt.run } : c;

/** One random session of a run: steps in order, repeated, late and skipped; step-less requests; retries. */
function session(seed: number) {
  const rand = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const keys: Array<{ key: string; fingerprint: string }> = [];
  let step = 0;
  const ops: Array<{ kind: 'count'; items: Item[] } | { kind: 'configure'; samples_per_step: number | null } | { kind: 'finalize' }> = [];
  for (let i = 0; i < 40; i++) {
    const r = rand();
    if (r < 0.05) ops.push({ kind: 'configure', samples_per_step: pick([null, 2, 5]) });
    else if (r < 0.1) ops.push({ kind: 'finalize' });
    else {
      const items: Item[] = [];
      for (let n = 1 + Math.floor(rand() * 3); n > 0; n--) {
        const s = rand();
        if (s < 0.3) step += pick([1, 1, 2]);
        const itemStep = s < 0.15 ? undefined : s < 0.2 ? Math.max(0, step - pick([1, 2, 3])) : step;
        const plans = 1 + Math.floor(rand() * 4);
        const tally: Tally = {
          raws: Array.from({ length: plans }, (): AxisVector => ({ struct: rand(), pers: rand(), ped: rand() })),
          gated: plans > 2 ? 1 : 0,
          gateReasons: plans > 2 ? { cycle: 1 } : {},
          diversities: [rand()],
          flagged: 0,
          gaming: {},
        };
        const k = rand();
        // A new key, a retry of an earlier one (same or other content), or none.
        const receipt =
          k < 0.5
            ? { key: `k${i}.${n}`, fingerprint: `f${i}.${n}`, ...(rand() < 0.3 && keys.length > 0 ? { alsoUnder: [pick(keys).key] } : {}) }
            : k < 0.8 && keys.length > 0
              ? { ...pick(keys) }
              : k < 0.85 && keys.length > 0
                ? { key: pick(keys).key, fingerprint: 'other' }
                : undefined;
        if (receipt) keys.push({ key: receipt.key, fingerprint: receipt.fingerprint });
        items.push({ step: itemStep, tally, ...(receipt ? { receipt } : {}) });
      }
      ops.push({ kind: 'count', items });
    }
  }
  return ops;
}

async function play(store: RunStore, ops: ReturnType<typeof session>) {
  let clock = 0;
  const ledger = new RunLedger(store, { ...JUDGED, maxRuns: 100 }, () => new Date(Date.UTC(2026, 0, 1, 0, 0, clock++)));
  const answers: unknown[] = [];
  for (const op of ops) {
    if (op.kind === 'configure') answers.push((await ledger.configure('r', { samples_per_step: op.samples_per_step })).run.config.samples_per_step);
    else if (op.kind === 'finalize') answers.push((await ledger.finalize('r')).finalized);
    else {
      const out = await ledger.countMany('r', JUDGED, op.items);
      answers.push(out.kind === 'counted' ? out.counted.map(outcome) : out);
    }
  }
  return { answers, history: await store.history('r', 0, 1000), open: await store.openStep('r'), run: await store.getRun('r') };
}

t.test('random sessions come to the same answers and state on both engines', async (t) => {
  const stores = await Promise.all(ENGINES.map(async (e) => openStore(await stateSettings(e))));
  t.teardown(() => Promise.all(stores.map((s) => s.close())));
  for (let seed = 1; seed <= 12; seed++) {
    const ops = session(seed);
    // Each seed its own run: the stores are fresh per seed by deleting the last one's.
    const [sqlite, postgres] = await Promise.all(
      stores.map(async (s) => {
        await new RunLedger(s, { ...JUDGED, maxRuns: 100 }).delete('r');
        return play(s, ops);
      }),
    );
    t.same(postgres, sqlite, `seed ${seed}: ${ops.length} operations`);
    t.ok(sqlite!.history.total > 0, `seed ${seed} finalized steps`);
  }
});

t.test('a receipt read ahead, then pruned when the same transaction finalizes a step, is not replayed', async (t) => {
  const settings = await stateSettings('postgres');
  const store = await openStore(settings);
  t.teardown(() => store.close());
  const ledger = new RunLedger(store, { ...JUDGED, maxRuns: 100 });
  const one: Tally = { raws: [{ struct: 1, pers: 1, ped: 1 }], gated: 0, gateReasons: {}, diversities: [], flagged: 0, gaming: {} };
  await ledger.count('r', 0, one, JUDGED, { key: 'old', fingerprint: 'f' });
  const c = new pg.Client({ connectionString: settings.STATE_URL });
  await c.connect();
  try {
    await c.query(`INSERT INTO receipts (run_id, key, fingerprint, info) SELECT 'r', 'bulk' || i, 'f', '{}' FROM generate_series(1, $1) i`, [
      MAX_RECEIPTS_PER_RUN,
    ]);
  } finally {
    await c.end();
  }
  // The first request finalizes step 0, which keeps only the newest receipts: "old" is gone by the second.
  const out = await ledger.countMany('r', JUDGED, [
    { step: 1, tally: one, receipt: { key: 'new', fingerprint: 'n' } },
    { step: 1, tally: one, receipt: { key: 'old', fingerprint: 'f' } },
  ]);
  t.same(out.kind === 'counted' && out.counted.map((c) => c.kind), ['counted', 'counted']);
  t.equal((await store.openStep('r'))?.plans, 2);
});
