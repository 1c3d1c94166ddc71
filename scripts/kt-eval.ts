/**
 * Knowledge-tracing evaluation on ASSISTments 2015 as prepared by pykt (`npm run kt:eval`).
 *
 * Fits BKT per concept on assist2015_train_valid.csv (all folds), then predicts every answer in
 * assist2015_test.csv before seeing it (forward filtering per student per concept) and reports ROC AUC and
 * RMSE next to constant and per-concept baselines.
 *
 * Data layout: pykt's split_datasets writes train_valid.csv / test.csv with one row per student holding the
 * whole sequence (its 200-interaction chunks live in the *_sequences.csv files, not these), so no row is a
 * chunk here. Rows of the same uid are still concatenated in file order, so a chunked file would read as one
 * continuing sequence; the script prints how many uids spanned several rows.
 *
 * Concepts unseen in training fall back to parameters fitted on all training data pooled as one skill.
 *
 * KT_DATA overrides the data directory (default ../shared/data/knowledge-tracing next to the repository).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PARAMS } from '../src/contracts/trace-knowledge.js';
import { type BktParams, pCorrect, posterior, transition } from '../src/tracing/bkt.js';
import { FIT_DEFAULTS, type FitResult, fitSkill } from '../src/tracing/em.js';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../..');
const dataDir = process.env.KT_DATA ?? resolve(repoRoot, '../shared/data/knowledge-tracing');
const SEED = 0;

interface Student {
  uid: string;
  concepts: string[];
  responses: boolean[];
}

/** Splits one CSV line on commas outside double quotes (the files quote the comma-separated lists). */
function splitCsvLine(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === ',' && !quoted) {
      fields.push(field);
      field = '';
    } else field += ch;
  }
  fields.push(field);
  return fields;
}

/** Reads a pykt sequence file, concatenating rows of the same uid in file order. */
function readStudents(file: string): { students: Student[]; rows: number; multiRowUids: number } {
  const lines = readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.length > 0);
  const header = splitCsvLine(lines[0] ?? '');
  const col = (name: string) => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`${file}: no column ${name}`);
    return i;
  };
  const [uidCol, conceptCol, responseCol] = [col('uid'), col('concepts'), col('responses')];
  const byUid = new Map<string, Student>();
  const rowsPerUid = new Map<string, number>();
  for (const line of lines.slice(1)) {
    const f = splitCsvLine(line);
    const uid = f[uidCol]!;
    const concepts = f[conceptCol]!.split(',');
    const responses = f[responseCol]!.split(',');
    if (concepts.length !== responses.length) throw new Error(`${file}: uid ${uid} concepts/responses differ`);
    let student = byUid.get(uid);
    if (!student) byUid.set(uid, (student = { uid, concepts: [], responses: [] }));
    rowsPerUid.set(uid, (rowsPerUid.get(uid) ?? 0) + 1);
    concepts.forEach((c, i) => {
      const r = responses[i];
      if (c === '-1' || r === '-1') return; // pykt padding, if a chunked file is given
      if (r !== '0' && r !== '1') throw new Error(`${file}: uid ${uid} response ${r}`);
      student.concepts.push(c);
      student.responses.push(r === '1');
    });
  }
  const multiRowUids = [...rowsPerUid.values()].filter((n) => n > 1).length;
  return { students: [...byUid.values()], rows: lines.length - 1, multiRowUids };
}

/** One answer sequence per (student, concept), grouped by concept. */
function sequencesByConcept(students: Student[]): Map<string, boolean[][]> {
  const out = new Map<string, boolean[][]>();
  for (const s of students) {
    const mine = new Map<string, boolean[]>();
    s.concepts.forEach((c, i) => {
      let seq = mine.get(c);
      if (!seq) mine.set(c, (seq = []));
      seq.push(s.responses[i]!);
    });
    for (const [c, seq] of mine) {
      let list = out.get(c);
      if (!list) out.set(c, (list = []));
      list.push(seq);
    }
  }
  return out;
}

/**
 * ROC AUC as the Mann–Whitney statistic with tied scores given their average rank, so a constant predictor
 * scores exactly 0.5.
 */
function rocAuc(scores: Float64Array, labels: Uint8Array): number {
  const n = scores.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[a]! - scores[b]!);
  let positives = 0;
  let rankSumPositives = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && scores[order[j + 1]!] === scores[order[i]!]) j++;
    const averageRank = (i + j) / 2 + 1; // ranks are 1-based
    for (let k = i; k <= j; k++) {
      if (labels[order[k]!] === 1) {
        positives++;
        rankSumPositives += averageRank;
      }
    }
    i = j + 1;
  }
  const negatives = n - positives;
  return (rankSumPositives - (positives * (positives + 1)) / 2) / (positives * negatives);
}

/** Root mean squared error of probabilities against 0/1 outcomes. */
function rmse(scores: Float64Array, labels: Uint8Array): number {
  let ss = 0;
  for (let i = 0; i < scores.length; i++) ss += (scores[i]! - labels[i]!) ** 2;
  return Math.sqrt(ss / scores.length);
}

/** Predicts each test answer before seeing it: per student, per concept, forward filtering from the prior. */
function bktPredictions(students: Student[], paramsFor: (concept: string) => BktParams, total: number): Float64Array {
  const out = new Float64Array(total);
  let k = 0;
  for (const s of students) {
    const mastery = new Map<string, number>();
    s.concepts.forEach((c, i) => {
      const p = paramsFor(c);
      const L = mastery.get(c) ?? p.prior;
      out[k++] = pCorrect(L, p);
      mastery.set(c, transition(posterior(L, s.responses[i]!, p), p));
    });
  }
  return out;
}

function select(xs: Float64Array, mask: Uint8Array): Float64Array;
function select(xs: Uint8Array, mask: Uint8Array): Uint8Array;
function select(xs: Float64Array | Uint8Array, mask: Uint8Array): Float64Array | Uint8Array {
  return xs.filter((_, i) => mask[i] === 1);
}

function main(): void {
  const train = readStudents(join(dataDir, 'assist2015_train_valid.csv'));
  const test = readStudents(join(dataDir, 'assist2015_test.csv'));
  const trainByConcept = sequencesByConcept(train.students);

  // Fit per concept; the timing covers EM only (parsing excluded).
  const t0 = performance.now();
  const fits = new Map<string, FitResult>();
  for (const [concept, seqs] of trainByConcept) fits.set(concept, fitSkill(seqs, { seed: SEED }));
  const trainMs = performance.now() - t0;

  const t1 = performance.now();
  const pooled = fitSkill([...trainByConcept.values()].flat(), { seed: SEED });
  const pooledMs = performance.now() - t1;

  // Train-set correct rates for the baselines.
  let trainCorrect = 0;
  let trainTotal = 0;
  const conceptRate = new Map<string, number>();
  for (const [concept, seqs] of trainByConcept) {
    let c = 0;
    let n = 0;
    for (const seq of seqs) {
      n += seq.length;
      for (const r of seq) if (r) c++;
    }
    conceptRate.set(concept, c / n);
    trainCorrect += c;
    trainTotal += n;
  }
  const globalRate = trainCorrect / trainTotal;

  // Test labels, and which answers are not a student's first (pykt scores from the second answer on).
  const total = test.students.reduce((s, x) => s + x.responses.length, 0);
  const labels = new Uint8Array(total);
  const notFirst = new Uint8Array(total);
  const unseenConcepts = new Set<string>();
  let k = 0;
  for (const s of test.students) {
    s.responses.forEach((r, i) => {
      labels[k] = r ? 1 : 0;
      notFirst[k++] = i > 0 ? 1 : 0;
      if (!fits.has(s.concepts[i]!)) unseenConcepts.add(s.concepts[i]!);
    });
  }

  const predictors: [string, Float64Array][] = [
    ['BKT (per-concept EM)', bktPredictions(test.students, (c) => fits.get(c)?.params ?? pooled.params, total)],
    ['BKT (one pooled skill)', bktPredictions(test.students, () => pooled.params, total)],
    ['BKT (DEFAULT_PARAMS)', bktPredictions(test.students, () => DEFAULT_PARAMS, total)],
    ['per-concept train rate', Float64Array.from(test.students.flatMap((s) => s.concepts.map((c) => conceptRate.get(c) ?? globalRate)))],
    ['global train rate (majority)', new Float64Array(total).fill(globalRate)],
  ];
  const nf = select(labels, notFirst);
  const results = predictors.map(([name, scores]) => ({
    model: name,
    auc: rocAuc(scores, labels),
    rmse: rmse(scores, labels),
    aucSkipFirst: rocAuc(select(scores, notFirst), nf),
    rmseSkipFirst: rmse(select(scores, notFirst), nf),
  }));

  // Majority class as a hard 0/1 prediction, for completeness.
  const majority = globalRate >= 0.5 ? 1 : 0;
  const majorityAccuracy = labels.filter((l) => l === majority).length / total;
  const fitted = [...fits.values()];
  const bound = { guess: FIT_DEFAULTS.maxGuess, slip: FIT_DEFAULTS.maxSlip };
  const atBound = (f: 'guess' | 'slip') => fitted.filter((x) => x.params[f] >= bound[f] - 1e-9).length;

  const report = {
    data: {
      dir: dataDir,
      layout: 'one row per student (pykt train_valid.csv/test.csv, unchunked); same-uid rows would be concatenated',
      train: {
        rows: train.rows,
        students: train.students.length,
        multiRowUids: train.multiRowUids,
        interactions: trainTotal,
        concepts: trainByConcept.size,
        studentConceptSequences: fitted.reduce((s, f) => s + f.sequences, 0),
        correctRate: globalRate,
      },
      test: {
        rows: test.rows,
        students: test.students.length,
        multiRowUids: test.multiRowUids,
        interactions: total,
        concepts: new Set(test.students.flatMap((s) => s.concepts)).size,
        unseenConcepts: unseenConcepts.size,
        correctRate: labels.reduce((s, l) => s + l, 0) / total,
      },
    },
    fit: {
      restarts: FIT_DEFAULTS.restarts,
      seed: SEED,
      bounds: { maxGuess: FIT_DEFAULTS.maxGuess, maxSlip: FIT_DEFAULTS.maxSlip },
      perConceptMs: Math.round(trainMs),
      pooledMs: Math.round(pooledMs),
      meanIterations: fitted.reduce((s, f) => s + f.iterations, 0) / fitted.length,
      conceptsWithGuessAtBound: atBound('guess'),
      conceptsWithSlipAtBound: atBound('slip'),
      median: Object.fromEntries(
        (['prior', 'learn', 'guess', 'slip'] as const).map((f) => {
          const v = fitted.map((x) => x.params[f]).sort((a, b) => a - b);
          return [f, v[Math.floor(v.length / 2)]];
        }),
      ),
      pooled: pooled.params,
      unseenConceptFallback: 'pooled fit on all training data',
    },
    results,
    majorityClass: { predicts: majority, accuracy: majorityAccuracy, auc: 0.5 },
  };

  const pad = (s: string, n: number) => s.padEnd(n);
  const f4 = (x: number) => x.toFixed(4);
  console.log(
    `train: ${train.students.length} students, ${trainTotal} answers, ${trainByConcept.size} concepts; ` +
      `test: ${test.students.length} students, ${total} answers (${unseenConcepts.size} unseen concepts)`,
  );
  console.log(`EM per concept: ${Math.round(trainMs)} ms (pooled fallback ${Math.round(pooledMs)} ms)\n`);
  console.log(`${pad('model', 30)}  ${pad('AUC', 6)}  ${pad('RMSE', 6)}  ${pad('AUC*', 6)}  RMSE*`);
  for (const r of results) {
    console.log(`${pad(r.model, 30)}  ${f4(r.auc)}  ${f4(r.rmse)}  ${f4(r.aucSkipFirst)}  ${f4(r.rmseSkipFirst)}`);
  }
  console.log("* excluding each student's first answer, as pykt scores\n");
  console.log(JSON.stringify(report, null, 2));
}

main();
