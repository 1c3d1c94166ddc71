// A request's bookkeeping on PostgreSQL in two round trips: the transaction's start goes with the run's reads
// and what the request will read besides (its receipts, ids for new ones, the values of a step it
// finalizes), its writes with COMMIT (src/runs/postgres-store.ts, Batch; src/runs/postgres-read-ahead.ts).
import pg from 'pg';
import t from 'tap';
import { RunLedger } from '../../src/runs/ledger.js';
import { DEFAULT_SCORING, type Tally } from '../../src/scoring/score-groups.js';
import { openStore, stateSettings } from '../support/stores.js';

const JUDGED = { lambda_hard: DEFAULT_SCORING.lambda_hard, reward_profile: DEFAULT_SCORING.reward_profile };
const tally = (n: number): Tally => ({
  raws: Array.from({ length: n }, (_, i) => ({ struct: i / n, pers: 0.5, ped: 1 - i / n })),
  gated: 1,
  gateReasons: { cycle: 1 },
  diversities: [0.25],
  flagged: 0,
  gaming: {},
});

/** The messages sent to the server while `f` runs: each is one round trip. */
async function roundTrips(f: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    sent.push(typeof args[0] === 'string' ? args[0] : JSON.stringify(args[0]));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await f();
  } finally {
    pg.Client.prototype.query = query;
  }
  return sent;
}

t.test('counting a request with a receipt: two round trips, also when it finalizes the step before', async (t) => {
  const store = await openStore(await stateSettings('postgres'));
  t.teardown(() => store.close());
  const ledger = new RunLedger(store, { ...JUDGED, maxRuns: 100 });
  await ledger.configure('r', {});
  const count = (step: number, key: string) => ledger.count('r', step, tally(8), JUDGED, { key, fingerprint: `fp-${key}` });

  const joins = await roundTrips(() => count(0, 'a'));
  t.equal(joins.length, 2, `opens step 0: ${joins.length} messages`);
  t.match(
    joins[0],
    /^BEGIN;\nSELECT pg_advisory_xact_lock\(hashtextextended\('r', 0\)\);\nSELECT \* FROM runs/,
    'the transaction starts with its first read, the lock before it',
  );
  t.match(joins[0], /FROM receipts WHERE run_id = 'r' AND key IN \('a'\)/, 'the receipt is read with the run');
  t.match(joins[0], /nextval/, 'and an id for it drawn');
  const writes = joins.at(-1)!;
  t.match(writes, /COMMIT$/, 'the writes go with COMMIT');
  for (const table of ['open_steps', 'step_values', 'receipts'])
    t.match(writes, `INSERT INTO ${table}`, `the ${table} write goes in one message with the rest`);

  const folds = await roundTrips(() => count(1, 'b'));
  t.equal(folds.length, 2, `finalizes step 0 and opens step 1: ${folds.length} messages`);
  t.match(folds[0], /FROM step_values v JOIN open_steps o/, 'the values of the step it finalizes are read with the run');
  t.match(folds.join('\n'), 'INSERT INTO history');

  // What went in those messages is what the store holds, read back the ordinary way.
  const history = await store.history('r', 0, 10);
  t.equal(history.total, 1);
  t.match(history.rows[0], { step: 0, plans: 8, gated: 1, requests: 1 });
  t.match(await store.openStep('r'), { step: 1, plans: 8, gated: 1, requests: 1, gate_reasons: { cycle: 1 } });
  const replay = await ledger.count('r', 1, tally(8), JUDGED, { key: 'b', fingerprint: 'fp-b' });
  t.equal(replay.kind, 'replay', 'the receipt written in the batch is found');
  t.equal((await ledger.count('r', 1, tally(8), JUDGED, { key: 'b', fingerprint: 'other' })).kind, 'conflict');
});

t.test('text with quotes and backslashes, written in as literals, reads back as it was', async (t) => {
  const store = await openStore(await stateSettings('postgres'));
  t.teardown(() => store.close());
  const ledger = new RunLedger(store, { ...JUDGED, maxRuns: 100 });
  const id = "it's a \\ run; DROP TABLE runs; --";
  const key = "k'\\\n\u00e9\u{1F642}";
  await ledger.count(id, 0, tally(3), JUDGED, { key, fingerprint: "f'\\" });
  t.equal((await store.getRun(id))?.id, id);
  t.equal((await ledger.count(id, 0, tally(3), JUDGED, { key, fingerprint: "f'\\" })).kind, 'replay', 'the key and fingerprint as written');
  t.match(await store.openStep(id), { step: 0, plans: 3 });
});
