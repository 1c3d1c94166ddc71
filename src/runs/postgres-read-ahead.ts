import {
  MAX_RECEIPTS_PER_RUN,
  stepValues,
  storedReceipt,
  type OpenStep,
  type ReadAhead,
  type ReceiptColumns,
  type StepValues,
  type StoredReceipt,
  type valueColumns,
} from './store.js';

export type ValueRow = ReturnType<typeof valueColumns>;

const list = (values: readonly unknown[], literal: (v: unknown) => string) => values.map(literal).join(', ');

/**
 * The statements that read what `ahead` foresees, in the order `KnownState` takes their rows: the receipts
 * of its keys, receipt ids drawn from the sequence for the receipts it may write, and the open step's
 * values when its requests finalize that step (a later step named, or step-less plans that do not fit).
 */
export function aheadStatements(id: string, ahead: ReadAhead, literal: (v: unknown) => string): string[] {
  const run = literal(id);
  const folds = [
    ...(ahead.lastStep === null ? [] : [`o.step < ${literal(ahead.lastStep)}`]),
    ...(ahead.autoPlans === null
      ? []
      : [
          `NOT (o.auto = 1 AND o.plans + ${literal(ahead.autoPlans)} < coalesce((SELECT (config::jsonb ->> 'samples_per_step')::bigint FROM runs WHERE id = ${run}), 0))`,
        ]),
  ];
  return [
    ahead.receiptKeys.length === 0
      ? 'SELECT NULL AS key WHERE false'
      : `SELECT key, id, fingerprint, info FROM receipts WHERE run_id = ${run} AND key IN (${list(ahead.receiptKeys, literal)})`,
    `SELECT nextval(pg_get_serial_sequence('receipts', 'id')) AS id FROM generate_series(1, ${literal(ahead.newReceipts)})`,
    folds.length === 0
      ? 'SELECT NULL AS step WHERE false'
      : `SELECT v.struct, v.pers, v.ped, v.diversity, v.aboutness FROM step_values v JOIN open_steps o ON o.run_id = v.run_id AND o.step = v.step
         WHERE v.run_id = ${run} AND (${folds.join(' OR ')}) ORDER BY v.id`,
  ];
}

/**
 * What one transaction knows of its run without asking the server again: what it read ahead with the run,
 * and what it wrote since (it holds the run's lock, so nobody else writes). What it does not know, the
 * store reads as usual.
 */
export class KnownState {
  /** Receipts as read ahead: null for a key known to have none. */
  readonly #read = new Map<string, StoredReceipt | null>();
  readonly #written = new Map<string, StoredReceipt>();
  readonly #ids: number[];
  /** Every value row of these steps, in insertion order. */
  readonly #values = new Map<number, ValueRow[]>();
  /** Whether the transaction deleted the run's values: a step's values are then all its own. */
  #emptied = false;

  constructor(
    private readonly open: OpenStep | null,
    [receipts, ids, values]: [Array<ReceiptColumns & { key: string }>, Array<{ id: number }>, ValueRow[]],
    keys: readonly string[],
  ) {
    for (const key of keys) this.#read.set(key, null);
    for (const r of receipts) this.#read.set(r.key, storedReceipt(r));
    this.#ids = ids.map((r) => r.id);
    // No rows is no knowledge: the step may have values the condition did not select.
    if (open && values.length > 0) this.#values.set(open.step, values);
  }

  /** The receipt under `key`; null if there is none; undefined if unknown. */
  receipt(key: string): StoredReceipt | null | undefined {
    return this.#written.get(key) ?? this.#read.get(key);
  }

  /** An id for a new receipt, if one was drawn ahead. */
  receiptId(): number | undefined {
    return this.#ids.shift();
  }

  wroteReceipt(key: string, receipt: StoredReceipt): void {
    this.#written.set(key, receipt);
  }

  addValues(step: number, row: ValueRow): void {
    const known = this.#values.get(step);
    if (known) known.push(row);
    // A step other than the open one read with the run has no values but the transaction's.
    else if (this.#emptied || step !== this.open?.step) this.#values.set(step, [row]);
  }

  values(step: number): StepValues | undefined {
    const rows = this.#values.get(step);
    return rows && stepValues(rows);
  }

  /** A step was finalized: its values were deleted, and the oldest receipts pruned. */
  finalized(): void {
    this.#values.clear();
    this.#emptied = true;
    // Pruning may have removed a receipt read ahead, never added one; this transaction's are the newest.
    for (const [key, r] of this.#read) if (r !== null) this.#read.delete(key);
    if (this.#written.size > MAX_RECEIPTS_PER_RUN) this.#written.clear();
  }
}
